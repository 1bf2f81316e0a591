import { lazy, Suspense } from 'react';
import { PageSkeleton, Shell } from './features/shell/Shell';
import { useT } from './i18n/i18n';
import { lazyPage, withApolloClient } from './lazy-page';
import { useLocationRoute, type Route } from './routes';

// Each page's code loads with the page: a store visitor downloads the store, not the developer portal,
// the review queue or the admin view, and the other way round (issue 27, "lighter").
const StorePage = lazyPage(() => import('./features/store/StorePage').then((module) => module.StorePage), { firstLoadWords: true, apollo: false });
const StoreAppPage = lazyPage(() => import('./features/store/StoreAppPage').then((module) => module.StoreAppPage));
const LibraryPage = lazyPage(() => import('./features/library/LibraryPage').then((module) => module.LibraryPage));
const MyAppsPage = lazyPage(() => import('./features/developer/MyAppsPage').then((module) => module.MyAppsPage));
const SubmitAppPage = lazyPage(() => import('./features/developer/SubmitAppPage').then((module) => module.SubmitAppPage));
const DeveloperAppPage = lazyPage(() => import('./features/developer/DeveloperAppPage').then((module) => module.DeveloperAppPage));
const ApiTokensPage = lazyPage(() => import('./features/tokens/ApiTokensPage').then((module) => module.ApiTokensPage));
const WebhookLogsPage = lazyPage(() => import('./features/webhook-logs/WebhookLogsPage').then((module) => module.WebhookLogsPage));
const DeliveryDetailPage = lazyPage(() => import('./features/webhook-logs/DeliveryDetailPage').then((module) => module.DeliveryDetailPage));
const ReviewQueuePage = lazyPage(() => import('./features/review/ReviewQueuePage').then((module) => module.ReviewQueuePage));
const ReviewPage = lazyPage(() => import('./features/review/ReviewPage').then((module) => module.ReviewPage));
const AdminPage = lazyPage(() => import('./features/admin/AdminPage').then((module) => module.AdminPage));
const AppLauncher = lazyPage(() => import('./features/launcher/AppLauncher').then((module) => module.AppLauncher));

// GraphiQL and its editor weigh more than the rest of the app together; only its visitors download it.
const GraphiQLPage = lazy(() => Promise.all([import('./features/graphiql/GraphiQLPage'), withApolloClient()]).then(([module, provide]) => ({ default: provide(module.default) })));

export function App() {
  const route = useLocationRoute();
  if (route.kind === 'launcher')
    return (
      <Suspense fallback={null}>
        <AppLauncher appId={route.appId} locale={route.locale} theme={route.theme} />
      </Suspense>
    );
  if (route.kind === 'graphiql')
    return (
      <Suspense fallback={<GraphiQLLoading />}>
        <GraphiQLPage />
      </Suspense>
    );
  return (
    <Shell route={route}>
      {(viewer) => (
        <Suspense fallback={<PageSkeleton />}>
          <Page route={route} points={viewer?.points ?? null} />
        </Suspense>
      )}
    </Shell>
  );
}

/** `points` is null for a visitor who is not signed in (the Shell shows them public pages only). */
function Page({ route, points }: { route: Route; points: number | null }) {
  switch (route.kind) {
    case 'store':
      return <StorePage key={route.search} category={route.category} search={route.search} signedIn={points !== null} />;
    case 'store-app':
      return <StoreAppPage appId={route.appId} points={points} />;
    case 'library':
      return <LibraryPage />;
    case 'my-apps':
      return <MyAppsPage />;
    case 'submit-app':
      return <SubmitAppPage />;
    case 'developer-app':
      return <DeveloperAppPage appId={route.appId} />;
    case 'api-tokens':
      return <ApiTokensPage />;
    case 'webhook-logs':
      return <WebhookLogsPage query={route.query} />;
    case 'webhook-delivery':
      return <DeliveryDetailPage key={route.deliveryId} deliveryId={route.deliveryId} />;
    case 'review-queue':
      return <ReviewQueuePage />;
    case 'review-app':
      return <ReviewPage key={route.appId} appId={route.appId} />;
    case 'admin':
      return <AdminPage />;
    // The launcher and GraphiQL are drawn outside the shell (App above), so they never reach here.
    case 'launcher':
    case 'graphiql':
    case 'not-found':
      return <NotFound />;
  }
}

/** Before GraphiQL's page has read the person's language: English, like every component outside a LocaleProvider. */
function GraphiQLLoading() {
  const t = useT();
  return <p aria-live="polite">{t('graphiql.loading')}</p>;
}

function NotFound() {
  const t = useT();
  return (
    <section className="card">
      <h2>{t('shell.notFoundHeading')}</h2>
      <p>{t('shell.notFound')}</p>
    </section>
  );
}
