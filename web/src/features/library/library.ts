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

/** The library page's own read: as LibraryQuery, with each app's pricing, so Uninstall can say a bought app stays bought. */
export const LibraryPageQuery = graphql(`
  query MyLibraryPage {
    myLibrary {
      id
      appId
      app {
        id
        name
        iconUrl
        shortDescription
        pricing
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
