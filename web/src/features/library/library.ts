import { graphql } from '../../gql';

export const LibraryQuery = graphql(`
  query MyLibrary {
    myLibrary {
      id
      appId
      app {
        id
        name
        iconUrl
        shortDescription
      }
    }
  }
`);

export const UninstallAppMutation = graphql(`
  mutation UninstallApp($appId: ID!) {
    uninstallApp(appId: $appId) {
      id
      appId
      uninstalledAt
    }
  }
`);
