import { graphql } from '../../gql';

export const StoreAppCardFields = graphql(`
  fragment StoreAppCardFields on App {
    id
    name
    iconUrl
    shortDescription
    pricing
    pricePoints
    priceVnd
    category
  }
`);

export const StoreAppsQuery = graphql(`
  query StoreApps($category: String, $search: String, $first: Int, $after: String) {
    storeApps(category: $category, search: $search, first: $first, after: $after) {
      edges {
        cursor
        node {
          id
          ...StoreAppCardFields
        }
      }
      pageInfo {
        hasNextPage
        endCursor
      }
    }
  }
`);

export const StoreCategoriesQuery = graphql(`
  query StoreCategories {
    categories {
      id
      label
    }
  }
`);
