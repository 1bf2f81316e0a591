import { graphql } from '../../gql';

export const AppCategoriesQuery = graphql(`
  query AppCategories {
    categories {
      id
      label
    }
  }
`);
