import { useMutation, useQuery } from '@apollo/client/react';
import { useState } from 'react';
import { graphql } from '../../gql';
import { useT } from '../../i18n/i18n';
import { launcherPath } from '../../routes';
import { AppIcon } from '../../ui/AppIcon';
import { ErrorMessage } from '../../ui/ErrorMessage';
import { serverProblem } from '../../ui/graphql-errors';
import { LibraryQuery } from '../library/library';
import { CurrentViewerQuery } from '../session/current-viewer';
import { PriceTag } from './PriceTag';

const StoreAppQuery = graphql(`
  query StoreApp($appId: ID!) {
    app(id: $appId) {
      id
      name
      iconUrl
      shortDescription
      category
      pricing
      pricePoints
    }
  }
`);

const InstallAppMutation = graphql(`
  mutation InstallApp($appId: ID!) {
    installApp(appId: $appId) {
      id
      appId
    }
  }
`);

const PurchaseAppMutation = graphql(`
  mutation PurchaseApp($appId: ID!) {
    purchaseApp(appId: $appId) {
      purchaseId
      appId
      pricePoints
    }
  }
`);

export function StoreAppPage({ appId, points }: { appId: string; points: number }) {
  const t = useT();
  const { data, error, loading, refetch } = useQuery(StoreAppQuery, { variables: { appId } });
  const library = useQuery(LibraryQuery, { fetchPolicy: 'cache-and-network' });
  // The balance and library change with a purchase; refetching them keeps the shell and this page honest.
  const refetchQueries = [CurrentViewerQuery, LibraryQuery];
  const [install, installing] = useMutation(InstallAppMutation, { refetchQueries, awaitRefetchQueries: true });
  const [purchase, purchasing] = useMutation(PurchaseAppMutation, { refetchQueries, awaitRefetchQueries: true });
  const [problem, setProblem] = useState<string | null>(null);

  if (error) return <ErrorMessage message={`Could not load this app: ${error.message}`} onRetry={() => void refetch()} />;
  if (loading && !data) return <p aria-live="polite">{t('loading')}</p>;
  const app = data?.app;
  if (!app) return <ErrorMessage message="This app is not in the store." />;
  const owned = library.data?.myLibrary.some((installation) => installation.appId === app.id) ?? false;
  const paid = app.pricing === 'PAID';

  async function acquire() {
    setProblem(null);
    try {
      if (paid) await purchase({ variables: { appId } });
      else await install({ variables: { appId } });
    } catch (err) {
      const found = serverProblem(err);
      setProblem(found.reason === 'INSUFFICIENT_POINTS' ? `${t('store.insufficient')} (${found.message})` : found.message);
    }
  }

  return (
    <article className="card store-app" aria-labelledby="store-app-name">
      <div className="store-app-head">
        <AppIcon src={app.iconUrl} name={app.name} size={96} />
        <div>
          <h1 id="store-app-name">{app.name}</h1>
          <p>{app.shortDescription}</p>
          <PriceTag pricing={app.pricing} pricePoints={app.pricePoints} />
        </div>
      </div>
      {paid && <p>{t('store.balance', { points })}</p>}
      {owned ? (
        <p role="status">
          {t('store.installed')} <a href={launcherPath(app.id)}>{t('library.open')}</a>
        </p>
      ) : (
        <button type="button" onClick={() => void acquire()} disabled={installing.loading || purchasing.loading}>
          {paid ? t('store.buy', { points: app.pricePoints ?? 0 }) : t('store.install')}
        </button>
      )}
      {problem && <ErrorMessage message={problem} />}
    </article>
  );
}
