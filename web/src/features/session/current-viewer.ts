import { graphql } from '../../gql';

/** Who the session cookie belongs to, so a reload keeps the person signed in. */
export const CurrentViewerQuery = graphql(`
  query CurrentViewer {
    me {
      id
      email
      roles
      points
      locale
      theme
    }
  }
`);
