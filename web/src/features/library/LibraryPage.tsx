import { useMutation, useQuery } from '@apollo/client/react';
import { useEffect, useRef, useState } from 'react';
import { useT } from '../../i18n/i18n';
import { launcherPath, storeAppPath } from '../../routes';
import { AppIcon } from '../../ui/AppIcon';
import { ErrorMessage } from '../../ui/ErrorMessage';
import { serverProblem } from '../../ui/graphql-errors';
import { Link } from '../../ui/Link';
import { StatusMessage } from '../../ui/StatusMessage';
import { LibraryPageQuery, UninstallAppMutation } from './library';

/** An uninstall that happened: what to say, and where to get the app back. */
interface Uninstalled {
  appId: string;
  name: string;
  bought: boolean;
}

export function LibraryPage() {
  const t = useT();
  const { data, loading, error, refetch } = useQuery(LibraryPageQuery, { fetchPolicy: 'cache-and-network' });
  const [uninstall, uninstallState] = useMutation(UninstallAppMutation, { refetchQueries: [LibraryPageQuery], awaitRefetchQueries: true });
  const [problem, setProblem] = useState<string | null>(null);
  // Uninstall asks first (finding 8): the app whose question is open, if any.
  const [asking, setAsking] = useState<string | null>(null);
  const [uninstalled, setUninstalled] = useState<Uninstalled | null>(null);
  const keepRef = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    // The question takes the keyboard, on its safe answer.
    if (asking) keepRef.current?.focus();
  }, [asking]);

  async function remove(done: Uninstalled) {
    setProblem(null);
    try {
      await uninstall({ variables: { appId: done.appId } });
      setAsking(null);
      setUninstalled(done);
    } catch (err) {
      setProblem(serverProblem(err).message);
    }
  }

  return (
    <section aria-labelledby="library-heading">
      <h1 id="library-heading">{t('library.heading')}</h1>
      {/* A retry that fails shows as the query's error again. */}
      {error && <ErrorMessage message={error.message} onRetry={() => void refetch()} />}
      {problem && <ErrorMessage message={problem} />}
      <StatusMessage message={uninstalled ? t(uninstalled.bought ? 'library.uninstalledBought' : 'library.uninstalled', { name: uninstalled.name }) : null} />
      {uninstalled && (
        <p>
          <Link href={storeAppPath(uninstalled.appId)}>{t('library.inStore', { name: uninstalled.name })}</Link>
        </p>
      )}
      {loading && !data && <p aria-live="polite">{t('loading')}</p>}
      {data &&
        (data.myLibrary.length === 0 ? (
          // An empty state says where to go next.
          <p>
            {t('library.empty')} <Link href="/">{t('library.browseStore')}</Link>
          </p>
        ) : (
          <ul className="app-grid">
            {data.myLibrary.map((installation) => {
              const name = installation.app?.name ?? installation.appId;
              const bought = installation.app?.pricing === 'PAID';
              const questionId = `uninstall-${installation.id}`;
              return (
                <li key={installation.id} className="app-card card">
                  {installation.app && <AppIcon src={installation.app.iconUrl} name={installation.app.name} size={48} />}
                  <div>
                    <h2>{name}</h2>
                    {installation.app && <p>{installation.app.shortDescription}</p>}
                    {asking === installation.appId ? (
                      <div className="confirm" role="group" aria-labelledby={`${questionId}-title`} aria-describedby={`${questionId}-text`}>
                        <p>
                          <strong id={`${questionId}-title`}>{t('library.uninstallAsk', { name })}</strong>
                        </p>
                        <p id={`${questionId}-text`}>
                          {t('library.uninstallAskText')}
                          {bought && ` ${t('library.uninstallKeepsPurchase')}`}
                        </p>
                        <div className="actions">
                          {/* remove() shows its own failure. */}
                          <button type="button" className="danger" disabled={uninstallState.loading} onClick={() => void remove({ appId: installation.appId, name, bought })}>
                            {t('library.uninstallConfirm')}
                          </button>
                          <button type="button" className="secondary" ref={keepRef} disabled={uninstallState.loading} onClick={() => setAsking(null)}>
                            {t('library.uninstallCancel')}
                          </button>
                        </div>
                      </div>
                    ) : (
                      <div className="actions">
                        <a className="button-link" href={launcherPath(installation.appId)} aria-label={`${t('library.open')} ${name}`}>
                          {t('library.open')}
                        </a>
                        <button type="button" className="secondary" onClick={() => setAsking(installation.appId)} aria-label={`${t('library.uninstall')} ${name}`}>
                          {t('library.uninstall')}
                        </button>
                      </div>
                    )}
                  </div>
                </li>
              );
            })}
          </ul>
        ))}
    </section>
  );
}
