import { useMutation, useQuery } from '@apollo/client/react';
import { useState } from 'react';
import { useT } from '../../i18n/i18n';
import { launcherPath } from '../../routes';
import { AppIcon } from '../../ui/AppIcon';
import { ErrorMessage } from '../../ui/ErrorMessage';
import { serverProblem } from '../../ui/graphql-errors';
import { LibraryQuery, UninstallAppMutation } from './library';

export function LibraryPage() {
  const t = useT();
  const { data, loading, error, refetch } = useQuery(LibraryQuery, { fetchPolicy: 'cache-and-network' });
  const [uninstall] = useMutation(UninstallAppMutation, { refetchQueries: [LibraryQuery], awaitRefetchQueries: true });
  const [problem, setProblem] = useState<string | null>(null);

  async function remove(appId: string) {
    setProblem(null);
    try {
      await uninstall({ variables: { appId } });
    } catch (err) {
      setProblem(serverProblem(err).message);
    }
  }

  return (
    <section aria-labelledby="library-heading">
      <h1 id="library-heading">{t('library.heading')}</h1>
      {error && <ErrorMessage message={error.message} onRetry={() => void refetch()} />}
      {problem && <ErrorMessage message={problem} />}
      {loading && !data && <p aria-live="polite">{t('loading')}</p>}
      {data &&
        (data.myLibrary.length === 0 ? (
          <p>{t('library.empty')}</p>
        ) : (
          <ul className="app-grid">
            {data.myLibrary.map((installation) => {
              const name = installation.app?.name ?? installation.appId;
              return (
                <li key={installation.id} className="app-card card">
                  {installation.app && <AppIcon src={installation.app.iconUrl} name={installation.app.name} size={48} />}
                  <div>
                    <h2>{name}</h2>
                    {installation.app && <p>{installation.app.shortDescription}</p>}
                    <div className="actions">
                      <a className="button-link" href={launcherPath(installation.appId)} aria-label={`${t('library.open')} ${name}`}>
                        {t('library.open')}
                      </a>
                      <button type="button" className="secondary" onClick={() => void remove(installation.appId)} aria-label={`${t('library.uninstall')} ${name}`}>
                        {t('library.uninstall')}
                      </button>
                    </div>
                  </div>
                </li>
              );
            })}
          </ul>
        ))}
    </section>
  );
}
