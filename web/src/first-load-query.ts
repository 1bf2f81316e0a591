import type { ApolloClient, ObservableQuery, OperationVariables } from '@apollo/client';
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import type { DocumentNode, FieldNode, SelectionSetNode } from 'graphql';
import { createContext, useCallback, useContext, useState, useSyncExternalStore, type Context } from 'react';
import { isUnreachable, onReconnect, plazaReachable, plazaUnreachable, PlazaUnreachableError } from './connection';
import { print } from './print-document';

/**
 * The queries of the store's first load (the shell's session, the store's list), answered without Apollo
 * Client: Apollo with rxjs, optimism and graphql-js is about 155 KB, a quarter of what the store's first load
 * used to fetch, and none of it is needed to draw the store. Each query here is a plain POST of the same
 * document Apollo would send (its `__typename`s added the same way), with the same errors: no answer at all is
 * a PlazaUnreachableError and Plaza is probed until it answers, when what is on screen loads again.
 *
 * Apollo Client loads when something needs it (any other page, the bell, an action, "Load more", a change of
 * session). Then every answer fetched here is written to its cache and each query is handed over to a
 * watchQuery of its own, so nothing is fetched twice and the components reading these hooks keep their state
 * (typed text, focus): from then on the data comes from Apollo's cache, and mutations that update it show here.
 */

type FetchPolicy = 'cache-first' | 'cache-and-network' | 'cache-only';

export interface QueryState<TData> {
  data: TData | undefined;
  error: Error | undefined;
  loading: boolean;
}

interface FetchMoreOptions<TData, TVariables> {
  variables: Partial<TVariables>;
  updateQuery: (previous: TData, options: { fetchMoreResult: TData }) => TData;
}

export interface QueryResult<TData, TVariables> extends QueryState<TData> {
  refetch: () => Promise<unknown>;
  fetchMore: (options: FetchMoreOptions<TData, TVariables>) => Promise<unknown>;
}

let client: ApolloClient | undefined;
let loadingClient: Promise<ApolloClient> | undefined;

/** Apollo Client, loaded once (a failed load, Plaza out of reach, is tried again by the next caller). */
export function loadApolloClient(): Promise<ApolloClient> {
  return (loadingClient ??= import('./apollo-client').then(
    (module) => {
      client ??= module.createApolloClient();
      for (const entry of entries.values()) entry.handOver(client);
      return client;
    },
    (error: unknown) => {
      loadingClient = undefined;
      throw error;
    },
  ));
}

/** Everything cached belonged to the previous account: Apollo's cache is reset and what is on screen is read again. */
export async function resetStore(): Promise<void> {
  await (await loadApolloClient()).resetStore();
}

const typenameField: FieldNode = { kind: 'Field' as FieldNode['kind'], name: { kind: 'Name' as FieldNode['name']['kind'], value: '__typename' } };

/** `__typename` in every selection set below an operation's own, as Apollo's cache asks for it, so the cache can file what was fetched here. */
function withTypename(selectionSet: SelectionSetNode, root = false): SelectionSetNode {
  const selections = selectionSet.selections.map((selection) =>
    'selectionSet' in selection && selection.selectionSet ? { ...selection, selectionSet: withTypename(selection.selectionSet) } : selection,
  );
  const named = root || selections.some((selection) => selection.kind === 'Field' && selection.name.value.startsWith('__'));
  return { ...selectionSet, selections: named ? selections : [...selections, typenameField] };
}

const printed = new WeakMap<DocumentNode, { operationName: string | undefined; text: string }>();

/** The document as Apollo would send it, printed once. */
function printedOf(document: DocumentNode) {
  let result = printed.get(document);
  if (!result) {
    const definitions = document.definitions.map((definition) =>
      definition.kind === 'OperationDefinition' || definition.kind === 'FragmentDefinition'
        ? { ...definition, selectionSet: withTypename(definition.selectionSet, definition.kind === 'OperationDefinition') }
        : definition,
    );
    const operation = document.definitions.find((definition) => definition.kind === 'OperationDefinition');
    result = { operationName: operation?.name?.value, text: print({ ...document, definitions } as DocumentNode) };
    printed.set(document, result);
  }
  return result;
}

class GraphQLResponseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ServerError';
  }
}

/** What Apollo's HttpLink and the app's reachability link make of a request: its data, or the error they would raise. */
async function post<TData>(document: DocumentNode, variables: object | undefined): Promise<TData> {
  const { operationName, text } = printedOf(document);
  let body: { data?: TData | null; errors?: { message?: string }[] };
  try {
    const response = await fetch('/graphql', {
      method: 'POST',
      // The session is an HTTP-only cookie set by /auth on this same origin.
      credentials: 'same-origin',
      // The server runs Apollo's CSRF prevention, which refuses requests a browser could send without a preflight.
      headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json,application/json;q=0.9', 'apollo-require-preflight': 'true' },
      body: JSON.stringify({ operationName, variables: variables ?? {}, query: text }),
    });
    const bodyText = await response.text();
    // A GraphQL answer is read whatever its status (a 503 while the database fails over says why); anything else must be a 2xx.
    if (!response.headers.get('content-type')?.includes('application/graphql-response+json') && response.status >= 300)
      throw new GraphQLResponseError(`Response not successful: Received status code ${response.status}`);
    body = JSON.parse(bodyText) as typeof body;
    if (!body || typeof body !== 'object' || (!('data' in body) && !('errors' in body)))
      throw new GraphQLResponseError(`Server response was malformed for query '${operationName}'.`);
  } catch (error) {
    if (!isUnreachable(error)) throw error;
    plazaUnreachable();
    throw new PlazaUnreachableError(false, error);
  }
  plazaReachable();
  if (body.errors?.length)
    throw new GraphQLResponseError(
      body.errors
        .filter(Boolean)
        .map((error) => error.message || 'Error message not found.')
        .join('\n'),
    );
  return body.data as TData;
}

/** One query with its variables, shared by every component that reads it. */
class Entry {
  state: QueryState<unknown> = { data: undefined, error: undefined, loading: true };
  private readonly listeners = new Set<() => void>();
  /** Listeners that want the query answered (a cache-only reader only waits for what another fetched). */
  private fetchers = 0;
  private inFlight: Promise<void> | undefined;
  private observable: ObservableQuery<unknown, OperationVariables> | undefined;
  private subscription: { unsubscribe(): void } | undefined;

  constructor(
    readonly document: DocumentNode,
    readonly variables: OperationVariables | undefined,
    private policy: FetchPolicy,
  ) {}

  private set(next: Partial<QueryState<unknown>>): void {
    this.state = { ...this.state, ...next };
    this.listeners.forEach((listener) => listener());
  }

  read = () => this.state;

  listen(listener: () => void, policy: FetchPolicy): () => void {
    const fetching = policy !== 'cache-only';
    if (fetching && this.policy === 'cache-only') this.policy = policy;
    this.listeners.add(listener);
    if (fetching) this.fetchers++;
    if (this.observable) this.watch();
    // Before the handover a fetch never rejects: its failure is the query's error.
    else if (fetching && !this.inFlight && (this.state.data === undefined || this.policy === 'cache-and-network')) void this.fetch();
    return () => {
      this.listeners.delete(listener);
      if (fetching) this.fetchers--;
      if (this.listeners.size === 0) {
        this.subscription?.unsubscribe();
        this.subscription = undefined;
      }
    };
  }

  /** Asked again after Plaza could not be reached, as Apollo refetches its active queries. */
  get active(): boolean {
    return this.fetchers > 0 && !this.observable;
  }

  fetch(): Promise<void> {
    if (this.observable) return this.observable.refetch().then(() => undefined);
    this.inFlight ??= (async () => {
      this.set({ loading: true });
      try {
        const data = await post(this.document, this.variables);
        this.set({ data, error: undefined, loading: false });
      } catch (error) {
        // What was shown stays, with the error beside it, as Apollo keeps a query's last data when a refetch fails.
        this.set({ error: error instanceof Error ? error : new Error(String(error)), loading: false });
      } finally {
        this.inFlight = undefined;
        if (client) this.handOver(client);
      }
    })();
    return this.inFlight;
  }

  /** What was fetched goes into Apollo's cache; a request still on its way is handed over when it lands. */
  handOver(apollo: ApolloClient): void {
    if (this.observable || this.inFlight) return;
    const fetched = this.state.data !== undefined;
    if (fetched) apollo.writeQuery({ query: this.document, variables: this.variables, data: this.state.data });
    const policy = this.policy === 'cache-only' ? 'cache-first' : this.policy;
    this.observable = apollo.watchQuery({ query: this.document, variables: this.variables, fetchPolicy: fetched ? 'cache-first' : policy, nextFetchPolicy: policy });
    // What the cache holds already (a page that wrote it) is there for the first render, as Apollo's useQuery has it.
    if (!fetched) {
      const current = this.observable.getCurrentResult();
      if (current.data !== undefined) this.state = { data: current.data, error: undefined, loading: current.loading };
    }
    if (this.listeners.size > 0) this.watch();
  }

  private watch(): void {
    if (this.subscription || !this.observable) return;
    // While a query is read again (a reset after signing in or out) the last data stays until the new one arrives, as with Apollo's useQuery:
    // the shell would otherwise take the page down to its skeleton, with what was typed in it.
    this.subscription = this.observable.subscribe((result) =>
      this.set({ data: result.data === undefined && result.loading ? this.state.data : result.data, error: result.error, loading: result.loading }),
    );
  }

  fetchMore(options: FetchMoreOptions<unknown, OperationVariables>): Promise<unknown> {
    // Merging pages is Apollo's: the first "Load more" brings it.
    return loadApolloClient().then(() =>
      this.observable!.fetchMore({ variables: options.variables, updateQuery: (previous, { fetchMoreResult }) => options.updateQuery(previous, { fetchMoreResult }) as never }),
    );
  }
}

const entries = new Map<string, Entry>();
/** The entries of a client given by an ApolloProvider above (a test's), apart from the app's own. */
const providedEntries = new WeakMap<ApolloClient, Map<string, Entry>>();
const skipped: QueryState<unknown> = { data: undefined, error: undefined, loading: false };

onReconnect(() => {
  // Active entries are not handed over yet, so their fetch never rejects: a failure is the query's error again.
  for (const entry of entries.values()) if (entry.active) void entry.fetch();
});

function entryFor(document: DocumentNode, variables: OperationVariables | undefined, policy: FetchPolicy, provided: ApolloClient | undefined): Entry {
  const key = `${printedOf(document).text}\n${JSON.stringify(variables ?? {})}`;
  let known = entries;
  if (provided) {
    known = providedEntries.get(provided) ?? new Map<string, Entry>();
    providedEntries.set(provided, known);
  }
  let entry = known.get(key);
  if (!entry) {
    entry = new Entry(document, variables, policy);
    known.set(key, entry);
    const apollo = provided ?? client;
    if (apollo) entry.handOver(apollo);
  }
  return entry;
}

/** Apollo's React context, found by the global key Apollo files it under, so that reading it does not bring Apollo. */
const APOLLO_CONTEXT = Symbol.for('__APOLLO_CONTEXT__');
const noProvider = createContext<{ client?: ApolloClient }>({});

/**
 * The client of an ApolloProvider above, if any: the app draws the shell and the store outside one, but a
 * component tested inside a provider whose cache the test filled reads that client, as with Apollo's hooks.
 */
function useProvidedClient(): ApolloClient | undefined {
  const apolloContext = (createContext as unknown as Record<symbol, Context<{ client?: ApolloClient }> | undefined>)[APOLLO_CONTEXT];
  return useContext(apolloContext ?? noProvider).client;
}

/** Apollo's useQuery, for the store's first load: the same options and results that the shell and the store use. */
export function useQuery<TData, TVariables extends OperationVariables>(
  document: TypedDocumentNode<TData, TVariables>,
  options: { variables?: NoInfer<TVariables>; fetchPolicy?: FetchPolicy; skip?: boolean } = {},
): QueryResult<TData, TVariables> {
  const policy = options.fetchPolicy ?? 'cache-first';
  const provided = useProvidedClient();
  const entry = options.skip ? undefined : entryFor(document, options.variables, policy, provided);
  const subscribe = useCallback((listener: () => void) => entry?.listen(listener, policy) ?? (() => undefined), [entry, policy]);
  const state = useSyncExternalStore(subscribe, entry?.read ?? (() => skipped)) as QueryState<TData>;
  const refetch = useCallback(() => entry?.fetch() ?? Promise.resolve(), [entry]);
  const fetchMore = useCallback(
    (more: FetchMoreOptions<TData, TVariables>) => entry?.fetchMore(more as unknown as FetchMoreOptions<unknown, OperationVariables>) ?? Promise.resolve(),
    [entry],
  );
  return { ...state, refetch, fetchMore };
}

/** Apollo's useMutation, for the shell's own: Apollo loads with the first one, as an action that needs it. */
export function useMutation<TData, TVariables extends OperationVariables>(
  document: TypedDocumentNode<TData, TVariables>,
): [(options: { variables: TVariables }) => Promise<TData>, { error: Error | undefined }] {
  const [error, setError] = useState<Error | undefined>();
  const mutate = useCallback(
    async ({ variables }: { variables: TVariables }) => {
      try {
        const apollo = await loadApolloClient().catch((failure: unknown) => {
          // Apollo's own code could not be fetched: Plaza is out of reach, told as any action that could not reach it.
          plazaUnreachable();
          throw new PlazaUnreachableError(true, failure);
        });
        const result = await apollo.mutate({ mutation: document, variables });
        setError(undefined);
        return result.data as TData;
      } catch (failure) {
        setError(failure instanceof Error ? failure : new Error(String(failure)));
        throw failure;
      }
    },
    [document],
  );
  return [mutate, { error }];
}
