import { graphql } from '../../gql';

/** A fresh session token for the app, and where to load it: one per opening (tokens last 5 minutes). */
export const LaunchAppMutation = graphql(`
  mutation LaunchApp($appId: ID!, $locale: String, $theme: String) {
    launchApp(appId: $appId, locale: $locale, theme: $theme) {
      appId
      appUrl
      targetOrigin
      token
      userId
      locale
      theme
      expiresAt
    }
  }
`);

/**
 * The app's name, for the page title, the iframe's label and the messages about it; and the account's
 * language and theme, so the launcher speaks and looks like the rest of Plaza before the launch answers.
 */
export const LauncherAppQuery = graphql(`
  query LauncherApp($appId: ID!) {
    app(id: $appId) {
      id
      name
    }
    me {
      id
      locale
      theme
    }
  }
`);
