import { lazy, Suspense } from 'react';
import { AppLauncher } from './features/launcher/AppLauncher';
import { Shell } from './features/shell/Shell';
import { useT } from './i18n/i18n';
import { useLocationRoute, type Route } from './routes';
import { MyAppsPage } from './features/developer/MyAppsPage';
import { SubmitAppPage } from './features/developer/SubmitAppPage';
import { DeveloperAppPage } from './features/developer/DeveloperAppPage';
import { StorePage } from './features/store/StorePage';
import { StoreAppPage } from './features/store/StoreAppPage';
import { LibraryPage } from './features/library/LibraryPage';
import { ApiTokensPage } from './features/tokens/ApiTokensPage';
import { WebhookLogsPage } from './features/webhook-logs/WebhookLogsPage';
import { DeliveryDetailPage } from './features/webhook-logs/DeliveryDetailPage';
import { ReviewQueuePage } from './features/review/ReviewQueuePage';
import { ReviewPage } from './features/review/ReviewPage';
import { AdminPage } from './features/admin/AdminPage';

// GraphiQL and its editor weigh more than the rest of the app together; only its visitors download it.
const GraphiQLPage = lazy(() => import('./features/graphiql/GraphiQLPage'));

export function App() {
  const route = useLocationRoute();
  if (route.kind === 'launcher') return <AppLauncher appId={route.appId} locale={route.locale} theme={route.theme} />;
  if (route.kind === 'graphiql')
    return (
      <Suspense fallback={<GraphiQLLoading />}>
        <GraphiQLPage />
      </Suspense>
    );
  return <Shell route={route}>{(viewer) => <Page route={route} points={viewer?.points ?? null} />}</Shell>;
}

/** `points` is null for a visitor who is not signed in (the Shell shows them public pages only). */
function Page({ route, points }: { route: Route; points: number | null }) {
  switch (route.kind) {
    case 'store':
      return <StorePage key={route.search} category={route.category} search={route.search} />;
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
    default:
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
