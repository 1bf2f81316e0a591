import { useQuery } from '@apollo/client/react';
import { graphql } from '../../gql';
import { ErrorMessage } from '../../ui/ErrorMessage';

const StoreCategoriesQuery = graphql(`
  query StoreCategories {
    categories {
      id
      label
    }
  }
`);

export function CategoryList() {
  const { data, loading, error, refetch } = useQuery(StoreCategoriesQuery);

  return (
    <section className="card" aria-labelledby="categories-heading">
      <h2 id="categories-heading">Store categories</h2>
      {error && <ErrorMessage message={`Could not load the categories: ${error.message}`} onRetry={() => void refetch()} />}
      {loading && !data && <p aria-live="polite">Loading categories…</p>}
      {data &&
        (data.categories.length === 0 ? (
          <p>The store has no categories yet.</p>
        ) : (
          <ul className="chips">
            {data.categories.map((category) => (
              <li key={category.id}>{category.label}</li>
            ))}
          </ul>
        ))}
    </section>
  );
}
