import { useId, useState, type FormEvent } from 'react';
import { useQuery } from '../../first-load-query';
import { codeLabel, useT } from '../../i18n/i18n';
import { navigate } from '../../routes';
import { ErrorMessage } from '../../ui/ErrorMessage';
import { LibraryQuery } from '../library/library';
import { StoreAppCard } from './StoreAppCard';
import { StoreAppsQuery, StoreCategoriesQuery } from './store-apps';

const PAGE_SIZE = 24;

function storeUrl(category: string | null, search: string) {
  const query = new URLSearchParams();
  if (category) query.set('category', category);
  if (search) query.set('q', search);
  const text = query.toString();
  return text ? `/?${text}` : '/';
}

/** Filters live in the URL, so a search can be shared and survives a reload. */
export function StorePage({ category, search, signedIn }: { category: string | null; search: string; signedIn: boolean }) {
  const t = useT();
  const searchId = useId();
  const categoryId = useId();
  const [searchText, setSearchText] = useState(search);
  const categories = useQuery(StoreCategoriesQuery);
  const apps = useQuery(StoreAppsQuery, { variables: { category, search: search || null, first: PAGE_SIZE }, fetchPolicy: 'cache-and-network' });
  const connection = apps.data?.storeApps;
  // The same read as the app page's: what is in the person's library is marked Owned, with a way to open it.
  const library = useQuery(LibraryQuery, { fetchPolicy: 'cache-and-network', skip: !signedIn });
  const owned = new Set(library.data?.myLibrary.map((installation) => installation.appId));

  function submitSearch(event: FormEvent) {
    event.preventDefault();
    navigate(storeUrl(category, searchText.trim()));
  }

  function loadMore() {
    if (!connection?.pageInfo.endCursor) return;
    // A page that fails to load leaves the list as it was, with its button to try again.
    void apps.fetchMore({
      variables: { after: connection.pageInfo.endCursor },
      updateQuery: (previous, { fetchMoreResult }) => ({
        storeApps: { ...fetchMoreResult.storeApps, edges: [...previous.storeApps.edges, ...fetchMoreResult.storeApps.edges] },
      }),
    });
  }

  return (
    <section aria-labelledby="store-heading">
      <h1 id="store-heading">{t('store.heading')}</h1>
      <form className="store-filters" role="search" onSubmit={submitSearch}>
        <div>
          <label htmlFor={searchId}>{t('store.search')}</label>
          <div className="field-row">
            <input id={searchId} type="search" value={searchText} onChange={(event) => setSearchText(event.target.value)} />
            <button type="submit">{t('store.search')}</button>
          </div>
        </div>
        <div>
          <label htmlFor={categoryId}>{t('store.category')}</label>
          <select id={categoryId} value={category ?? ''} onChange={(event) => navigate(storeUrl(event.target.value || null, search))}>
            <option value="">{t('store.allCategories')}</option>
            {categories.data?.categories.map((option) => (
              <option key={option.id} value={option.id}>
                {codeLabel(t, 'category', option.id, option.label)}
              </option>
            ))}
          </select>
        </div>
      </form>
      {/* A retry that fails shows as the query's error again. */}
      {apps.error && <ErrorMessage message={t('store.loadFailed', { message: apps.error.message })} onRetry={() => void apps.refetch()} />}
      {!connection && apps.loading && <p aria-live="polite">{t('loading')}</p>}
      {connection &&
        (connection.edges.length === 0 ? (
          // "No apps match" answers a search or a category; before either, the store is simply empty.
          <p>{search || category ? t('store.empty') : t('store.emptyStore')}</p>
        ) : (
          <ul className="app-grid">
            {connection.edges.map((edge) => (
              <StoreAppCard key={edge.node.id} app={edge.node} owned={owned.has(edge.node.id)} />
            ))}
          </ul>
        ))}
      {connection?.pageInfo.hasNextPage && (
        <button type="button" onClick={loadMore}>
          {t('store.loadMore')}
        </button>
      )}
    </section>
  );
}
