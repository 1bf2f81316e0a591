import { useMutation, useQuery } from '@apollo/client/react';
import { useEffect, useRef, useState } from 'react';
import { graphql } from '../../gql';
import { codeLabel, useT } from '../../i18n/i18n';
import { launcherPath } from '../../routes';
import { AppIcon } from '../../ui/AppIcon';
import { ErrorMessage } from '../../ui/ErrorMessage';
import { serverProblem, useProblemText } from '../../ui/graphql-errors';
import { Link } from '../../ui/Link';
import { LibraryQuery } from '../library/library';
import { CurrentViewerQuery } from '../session/current-viewer';
import { SIGN_IN_ANCHOR } from '../shell/Shell';
import { PriceTag } from './PriceTag';
import { StoreAppDetails } from './StoreAppDetails';
import { StoreCategoriesQuery } from './store-apps';

export const StoreAppQuery = graphql(`
  query StoreApp($appId: ID!) {
    app(id: $appId) {
      id
      name
      iconUrl
      shortDescription
      category
      developerName
      pricing
      pricePoints
      priceVnd
      longDescription
      screenshotUrls
      supportUrl
      privacyPolicyUrl
      receives {
        sessionFields
        webhookEvents
      }
    }
  }
`);

export const InstallAppMutation = graphql(`
  mutation InstallApp($appId: ID!) {
    installApp(appId: $appId) {
      id
      appId
    }
  }
`);

export const PurchaseAppMutation = graphql(`
  mutation PurchaseApp($appId: ID!) {
    purchaseApp(appId: $appId) {
      purchaseId
      appId
      pricePoints
    }
  }
`);

/**
 * Bought and since uninstalled, an app goes back in the library free (installApp); buying it again would be refused.
 * Only this app's paid purchases, newest first: a new one can only follow a refund, so the newest says whether it is still bought.
 */
export const MyStorePurchasesQuery = graphql(`
  query MyStorePurchases($appId: ID!) {
    myPurchases(appId: $appId, kind: PURCHASE, first: 1) {
      edges {
        node {
          purchaseId
          appId
          kind
          status
        }
      }
    }
  }
`);

const LIBRARY_PATH = '/library';

/** `balance` is null for a visitor who is not signed in: they see the listing and a way to sign in. */
export function StoreAppPage({ appId, points: balance }: { appId: string; points: number | null }) {
  const t = useT();
  const problemText = useProblemText();
  const signedIn = balance !== null;
  const points = balance ?? 0;
  const { data, error, loading, refetch } = useQuery(StoreAppQuery, { variables: { appId } });
  const categories = useQuery(StoreCategoriesQuery);
  const library = useQuery(LibraryQuery, { fetchPolicy: 'cache-and-network', skip: !signedIn });
  const purchases = useQuery(MyStorePurchasesQuery, { variables: { appId }, fetchPolicy: 'cache-and-network', skip: !signedIn });
  // The balance and library change with a purchase; refetching them keeps the shell and this page honest.
  const refetchQueries = [CurrentViewerQuery, LibraryQuery];
  const [install, installing] = useMutation(InstallAppMutation, { refetchQueries, awaitRefetchQueries: true });
  const [purchase, purchasing] = useMutation(PurchaseAppMutation, { refetchQueries, awaitRefetchQueries: true });
  const [problem, setProblem] = useState<string | null>(null);
  // Buying spends points, so it takes a second, deliberate step that states the price and the balance.
  const [confirming, setConfirming] = useState(false);
  const [acquired, setAcquired] = useState<'purchased' | 'installed' | null>(null);
  const confirmRef = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (confirming) confirmRef.current?.querySelector('button')?.focus();
  }, [confirming]);
  // The button pressed is gone once the app is bought: the keyboard goes to the result, not the page's body (finding 14).
  const resultRef = useRef<HTMLParagraphElement>(null);
  useEffect(() => {
    if (acquired) resultRef.current?.focus();
  }, [acquired]);

  // A retry that fails shows as the query's error again.
  if (error) return <ErrorMessage message={t('dev.loadFailed', { message: error.message })} onRetry={() => void refetch()} />;
  if (loading && !data) return <p aria-live="polite">{t('loading')}</p>;
  const app = data?.app;
  if (!app) return <ErrorMessage message={t('store.notInStore')} />;
  const owned = library.data?.myLibrary.some((installation) => installation.appId === app.id) ?? false;
  const paid = app.pricing === 'PAID';
  const price = app.pricePoints ?? 0;
  const boughtBefore =
    paid && (purchases.data?.myPurchases.edges.some(({ node: bought }) => bought.appId === app.id && bought.kind === 'PURCHASE' && bought.status === 'COMPLETED') ?? false);
  const buying = paid && !boughtBefore;

  async function acquire() {
    setProblem(null);
    try {
      if (buying) await purchase({ variables: { appId } });
      else await install({ variables: { appId } });
      setAcquired(buying ? 'purchased' : 'installed');
    } catch (err) {
      const found = serverProblem(err);
      setProblem(found.reason === 'INSUFFICIENT_POINTS' ? `${t('store.insufficient')} (${found.message})` : problemText(found));
    }
    setConfirming(false);
  }

  function ownedMessage() {
    if (acquired === 'purchased') return t('store.purchased', { name: app!.name, points: price, balance: points });
    if (acquired === 'installed') return t('store.installed');
    return t('store.inLibrary');
  }

  return (
    <article className="card store-app" aria-labelledby="store-app-name">
      <p className="back-link">
        <Link href="/">{t('store.backToStore')}</Link>
      </p>
      <div className="store-app-head">
        <AppIcon src={app.iconUrl} name={app.name} size={96} />
        <div>
          <h1 id="store-app-name">{app.name}</h1>
          <p className="store-app-meta">
            {t('store.byDeveloper', { name: app.developerName })} ·{' '}
            <Link href={`/?category=${encodeURIComponent(app.category)}`}>
              {codeLabel(t, 'category', app.category, categories.data?.categories.find((category) => category.id === app.category)?.label)}
            </Link>
          </p>
          <p>{app.shortDescription}</p>
          {owned ? (
            <span className="badge">{t('store.ownedBadge')}</span>
          ) : boughtBefore ? (
            <span className="badge">{t('store.boughtBadge')}</span>
          ) : (
            <PriceTag pricing={app.pricing} pricePoints={app.pricePoints} priceVnd={app.priceVnd} />
          )}
        </div>
      </div>
      {!signedIn ? (
        <p>
          <a className="button-link" href={`#${SIGN_IN_ANCHOR}`}>
            {paid ? t('store.signInToBuy') : t('store.signInToInstall')}
          </a>
        </p>
      ) : owned ? (
        <p role="status" className="store-owned" ref={resultRef} tabIndex={-1}>
          {ownedMessage()} <Link href={LIBRARY_PATH}>{t('store.goToLibrary')}</Link> <a href={launcherPath(app.id)}>{t('library.open')}</a>
        </p>
      ) : (
        <>
          {buying && <p>{t('store.balance', { points })}</p>}
          {boughtBefore && <p>{t('store.boughtBefore')}</p>}
          {confirming ? (
            <div className="confirm store-confirm" role="group" aria-labelledby="store-confirm-text" ref={confirmRef}>
              {points >= price ? (
                <>
                  <p id="store-confirm-text">{t('store.confirmBuy', { name: app.name, points: price, balance: points, remaining: points - price })}</p>
                  {/* acquire() shows its own failure. */}
                  <button type="button" onClick={() => void acquire()} disabled={purchasing.loading}>
                    {t('store.confirmPurchase', { points: price })}
                  </button>
                </>
              ) : (
                <p id="store-confirm-text">{t('store.notEnough', { name: app.name, points: price, balance: points, missing: price - points })}</p>
              )}
              <button type="button" className="secondary" onClick={() => setConfirming(false)} disabled={purchasing.loading}>
                {t('store.cancelPurchase')}
              </button>
            </div>
          ) : (
            // acquire() shows its own failure.
            <button type="button" onClick={() => (buying ? setConfirming(true) : void acquire())} disabled={installing.loading || purchasing.loading}>
              {buying ? t('store.buy', { points: price }) : boughtBefore ? t('store.installAgain') : t('store.install')}
            </button>
          )}
        </>
      )}
      {problem && <ErrorMessage message={problem} />}
      <StoreAppDetails app={app} />
    </article>
  );
}
