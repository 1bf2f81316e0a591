import { useMutation, useQuery } from '@apollo/client/react';
import { useId, useRef, useState, type FormEvent, type RefObject } from 'react';
import { useFormat, useT } from '../../i18n/i18n';
import { CopyButton } from '../../ui/CopyButton';
import { ErrorMessage } from '../../ui/ErrorMessage';
import { serverProblem, useProblemText } from '../../ui/graphql-errors';
import { ApiTokensQuery, CreateApiTokenMutation, RevokeApiTokenMutation, TOKEN_SCOPES, TOKENS_PAGE_SIZE } from './api-tokens';

export function ApiTokensPage() {
  const t = useT();
  const format = useFormat();
  const tokens = useQuery(ApiTokensQuery, { variables: { first: TOKENS_PAGE_SIZE }, fetchPolicy: 'cache-and-network' });
  const [revoke] = useMutation(RevokeApiTokenMutation, { refetchQueries: [ApiTokensQuery] });
  const [problem, setProblem] = useState<string | null>(null);
  const connection = tokens.data?.myApiTokens;
  // The empty list's next step is the form above it: its button takes the person to the token's name.
  const nameField = useRef<HTMLInputElement>(null);

  function loadMore() {
    if (!connection?.pageInfo.endCursor) return;
    // A page that fails to load leaves the list as it was, with its button to try again.
    void tokens.fetchMore({
      variables: { after: connection.pageInfo.endCursor },
      // Pages are appended in the order the server gives them, which keeps newest first.
      updateQuery: (previous, { fetchMoreResult }) => ({
        ...fetchMoreResult,
        myApiTokens: { ...fetchMoreResult.myApiTokens, edges: [...previous.myApiTokens.edges, ...fetchMoreResult.myApiTokens.edges] },
      }),
    });
  }

  return (
    <>
      <h1>{t('tokens.heading')}</h1>
      <p className="hint">{t('tokens.lede')}</p>
      <CreateTokenForm nameField={nameField} />
      <section className="card" aria-labelledby="tokens-heading">
        <h2 id="tokens-heading">{t('tokens.list')}</h2>
        {/* A retry that fails shows as the query's error again. */}
        {tokens.error && <ErrorMessage message={tokens.error.message} onRetry={() => void tokens.refetch()} />}
        {problem && <ErrorMessage message={problem} />}
        {connection &&
          (connection.edges.length === 0 ? (
            <p>
              {t('tokens.none')}{' '}
              <button type="button" className="secondary" onClick={() => nameField.current?.focus()}>
                {t('tokens.createFirst')}
              </button>
            </p>
          ) : (
            // Focusable, so keyboard users can scroll a table wider than the screen (axe: scrollable-region-focusable).
            <div className="table-scroll" tabIndex={0} role="region" aria-labelledby="tokens-heading">
              <table>
                <thead>
                  <tr>
                    <th scope="col">{t('form.name')}</th>
                    <th scope="col">{t('tokens.scopes')}</th>
                    <th scope="col">{t('tokens.startsWith')}</th>
                    <th scope="col">{t('tokens.expires')}</th>
                    <th scope="col">
                      <span className="visually-hidden">{t('myApps.actions')}</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {connection.edges.map(({ node: token }) => (
                    <tr key={token.id}>
                      <td>{token.name}</td>
                      <td>{token.scopes.join(', ')}</td>
                      <td>
                        <code>{token.tokenPrefix}…</code>
                      </td>
                      <td>{format.dateTime(token.expiresAt)}</td>
                      <td>
                        {token.revokedAt ? (
                          t('tokens.revoked')
                        ) : (
                          <button
                            type="button"
                            className="secondary"
                            aria-label={`${t('tokens.revoke')} ${token.name}`}
                            onClick={() => {
                              setProblem(null);
                              revoke({ variables: { id: token.id } }).catch((err: unknown) => setProblem(serverProblem(err).message));
                            }}
                          >
                            {t('tokens.revoke')}
                          </button>
                        )}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          ))}
        {connection?.pageInfo.hasNextPage && (
          <button type="button" className="secondary" onClick={loadMore} disabled={tokens.loading}>
            {t('tokens.loadMore')}
          </button>
        )}
      </section>
    </>
  );
}

function CreateTokenForm({ nameField }: { nameField: RefObject<HTMLInputElement | null> }) {
  const t = useT();
  const nameId = useId();
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<string[]>(['deliveries:read']);
  const [created, setCreated] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const problemText = useProblemText();
  const [create, { loading }] = useMutation(CreateApiTokenMutation, { refetchQueries: [ApiTokensQuery] });

  async function submit(event: FormEvent) {
    event.preventDefault();
    setProblem(null);
    if (name.trim() === '') return setProblem(t('tokens.needName'));
    if (scopes.length === 0) return setProblem(t('tokens.needScope'));
    try {
      const result = await create({ variables: { input: { name: name.trim(), scopes } } });
      setCreated(result.data?.createApiToken.token ?? null);
      setName('');
    } catch (err) {
      // In the reader's language: the 51st live token (TOO_MANY_TOKENS) says what to do.
      setProblem(problemText(serverProblem(err)));
    }
  }

  return (
    <section className="card" aria-labelledby="create-token-heading">
      <h2 id="create-token-heading">{t('tokens.create')}</h2>
      {/* submit() shows its own failure in the form. */}
      <form onSubmit={(event) => void submit(event)} noValidate>
        <label htmlFor={nameId}>{t('tokens.name')}</label>
        <input id={nameId} ref={nameField} value={name} onChange={(event) => setName(event.target.value)} />
        <fieldset>
          <legend>{t('tokens.scopes')}</legend>
          {TOKEN_SCOPES.map((scope) => (
            <label key={scope} className="inline">
              <input
                type="checkbox"
                checked={scopes.includes(scope)}
                onChange={(event) => setScopes(event.target.checked ? [...scopes, scope] : scopes.filter((kept) => kept !== scope))}
              />{' '}
              {scope}
            </label>
          ))}
        </fieldset>
        <button type="submit" disabled={loading}>
          {t('tokens.createButton')}
        </button>
      </form>
      {problem && <ErrorMessage message={problem} />}
      {created && (
        <div className="created-token" role="status">
          <p>{t('tokens.shownOnce')}</p>
          <code>{created}</code> <CopyButton value={created} />
        </div>
      )}
    </section>
  );
}
