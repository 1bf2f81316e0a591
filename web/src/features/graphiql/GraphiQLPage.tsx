// Monaco's language workers must be registered before the editor mounts; this is graphiql's Vite recipe.
import 'graphiql/setup-workers/vite';
import 'graphiql/style.css';
import { useQuery } from '@apollo/client/react';
import { createGraphiQLFetcher } from '@graphiql/toolkit';
import { GraphiQL } from 'graphiql';
import { createClient } from 'graphql-ws';
import { useEffect, useMemo } from 'react';
import { graphqlWsUrl } from '../../apollo-client';
import { LocaleProvider, useT } from '../../i18n/i18n';
import { asLocale } from '../../i18n/strings';
import { CurrentViewerQuery } from '../session/current-viewer';
import { applyTheme, asTheme } from '../shell/preferences';

/** The whole API against this session: same-origin cookie over HTTP, and graphql-ws for subscriptions. */
export default function GraphiQLPage() {
  const fetcher = useMemo(
    () =>
      createGraphiQLFetcher({
        url: '/graphql',
        // Same rules as the app's own client: the cookie session, and the header CSRF prevention requires.
        fetch: (input, init) => fetch(input, { ...init, credentials: 'same-origin' }),
        headers: { 'apollo-require-preflight': 'true' },
        wsClient: createClient({ url: graphqlWsUrl(), lazy: true }),
      }),
    [],
  );
  // The person's saved language and theme, as the rest of Plaza shows them (GraphiQL has no shell of its own).
  const viewer = useQuery(CurrentViewerQuery, { fetchPolicy: 'cache-and-network' });
  const locale = asLocale(viewer.data?.me?.locale);
  const theme = asTheme(viewer.data?.me?.theme);
  useEffect(() => {
    applyTheme(theme);
    document.documentElement.lang = locale;
  }, [theme, locale]);

  return (
    <LocaleProvider locale={locale}>
      <div className="graphiql-page">
        <BackToPlaza />
        <div className="graphiql-host">
          {/* Forced, so GraphiQL's own theme setting (kept in its storage) cannot disagree with Plaza's. */}
          <GraphiQL fetcher={fetcher} forcedTheme={theme} />
        </div>
      </div>
    </LocaleProvider>
  );
}

function BackToPlaza() {
  const t = useT();
  return (
    <nav className="graphiql-bar" aria-label="GraphiQL">
      <a href="/">← {t('graphiql.backToPlaza')}</a>
    </nav>
  );
}
