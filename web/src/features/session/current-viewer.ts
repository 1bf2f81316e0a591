import { graphql } from '../../gql';

/**
 * Who the session cookie belongs to, so a reload keeps the person signed in. The balance is read as
 * `pointsExact` (64-bit): the contract's `points: Int` refuses balances past 2^31, which would lose `me`.
 */
export const CurrentViewerQuery = graphql(`
  query CurrentViewer {
    me {
      id
      email
      roles
      points: pointsExact
      locale
      theme
    }
  }
`);
