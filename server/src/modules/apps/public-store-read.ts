import { Kind, TypeInfo, visit, visitWithTypeInfo, type DocumentNode, type GraphQLSchema, type ValueNode } from 'graphql';
import { ExpiringCache } from '../../platform/expiring-cache.js';
import { STORE_PAGE_TTL_MS } from './store-page-cache.js';

/**
 * The fields a signed-out reader may be answered from memory: the store's listing, which is the same for
 * every signed-out reader (the approved version of each app, viewOf with no principal) and changes only
 * when an approval commits. Anything else (another root field, `status`, `webhookUrl`, `appUrl`, review
 * history, introspection) makes the operation uncacheable. Kept to what the store's pages ask
 * (web/src/features/store: StoreApps, StoreApp, StoreCategories); store-response-cache.test sends the web's
 * own documents, so a field the store starts to ask fails it until it is judged here.
 */
const PUBLIC_STORE_FIELDS: ReadonlySet<string> = new Set([
  'Query.storeApps',
  'Query.app',
  'Query.categories',
  'AppConnection.edges',
  'AppConnection.pageInfo',
  'AppEdge.cursor',
  'AppEdge.node',
  'PageInfo.hasNextPage',
  'PageInfo.hasPreviousPage',
  'PageInfo.startCursor',
  'PageInfo.endCursor',
  'App.id',
  'App.name',
  'App.iconUrl',
  'App.shortDescription',
  'App.category',
  'App.developerName',
  'App.pricing',
  'App.pricePoints',
  // The price in dong: the points times POINT_VALUE_VND, which is fixed for the process's life.
  'App.priceVnd',
  'App.longDescription',
  'App.screenshotUrls',
  'App.supportUrl',
  'App.privacyPolicyUrl',
  'App.receives',
  'AppReceives.sessionFields',
  // The one part of a listing that does not wait for review: it follows the app's endpoints, so a change to
  // them shows here up to STORE_PAGE_TTL_MS late, as any change does on another API process.
  'AppReceives.webhookEvents',
  'Category.id',
  'Category.name',
  'Category.label',
]);

/** Whether an operation may be answered from memory; a search by a variable is kept only when that variable is empty. */
export type StoreReadVerdict = { cacheable: false } | { cacheable: true; searchVariables: readonly string[] };

const NOT_CACHEABLE: StoreReadVerdict = { cacheable: false };

/**
 * Whether `operationName` of `document` is a query that reads the public store listing and nothing else.
 * The whole document is checked (every operation and fragment), so an answer is never kept for a document
 * that could reach a non-public field by any path. Searches are not kept: their text is the caller's, and
 * one-offs would push the store's pages out of memory.
 */
export function publicStoreRead(schema: GraphQLSchema, document: DocumentNode, operationName: string | null | undefined): StoreReadVerdict {
  const operations = document.definitions.filter((definition) => definition.kind === Kind.OPERATION_DEFINITION);
  const operation = operationName ? operations.find((op) => op.name?.value === operationName) : operations.length === 1 ? operations[0] : undefined;
  if (operation?.operation !== 'query') return NOT_CACHEABLE;
  const searchVariables: string[] = [];
  let cacheable = true;
  // `{ __typename }` alone is no store read (and benchmark 5's floor): at least one of the store's root fields.
  let readsStore = false;
  const typeInfo = new TypeInfo(schema);
  visit(
    document,
    visitWithTypeInfo(typeInfo, {
      Field(node) {
        const parent = typeInfo.getParentType();
        const name = node.name.value;
        if (!parent || !typeInfo.getFieldDef() || (name !== '__typename' && !PUBLIC_STORE_FIELDS.has(`${parent.name}.${name}`))) cacheable = false;
        if (parent?.name === 'Query' && name !== '__typename') readsStore = true;
        if (parent?.name === 'Query' && name === 'storeApps') {
          const search = node.arguments?.find((argument) => argument.name.value === 'search')?.value;
          if (search?.kind === Kind.VARIABLE) searchVariables.push(search.name.value);
          else if (search && !isEmptyText(search)) cacheable = false;
        }
      },
      // @include and @skip only: @defer and @stream answer in parts, and unknown directives are Apollo's to refuse.
      Directive(node) {
        if (node.name.value !== 'include' && node.name.value !== 'skip') cacheable = false;
      },
    }),
  );
  return cacheable && readsStore ? { cacheable, searchVariables } : NOT_CACHEABLE;
}

const isEmptyText = (value: ValueNode) => value.kind === Kind.NULL || (value.kind === Kind.STRING && value.value === '');

/** A whole HTTP answer as it was sent: the status, the headers the GraphQL server set, and the body. */
export interface StoredResponse {
  status: number;
  headers: readonly (readonly [string, string | number | readonly string[]])[];
  body: string;
}

/**
 * Whole GraphQL answers to signed-out store reads, kept for STORE_PAGE_TTL_MS (as the page cache) and
 * emptied when a listing changes: the same expiring cache as the pages (platform/expiring-cache.ts), with
 * its own bounds. A hit skips the GraphQL server altogether (parsing, plugins, execution and serialising),
 * which is what the floor of benchmark 5 is made of; the page cache below it only saves the statement.
 * Keyed by the caller (app/store-response-cache.ts) on the request's document, operation name, variables
 * and Accept header. `ttlMs` bounds staleness on other API processes, which this one's approvals do not reach.
 */
export class StoreResponseCache extends ExpiringCache<StoredResponse> {
  constructor() {
    super({
      ttlMs: STORE_PAGE_TTL_MS,
      // Pages by category and cursor, a few apps' pages; past it the least recently read go first.
      maxEntries: 500,
      // Bodies and keys; the store's first page of 20 apps is about 6 kB.
      maxBytes: 8 * 1024 * 1024,
      // Bigger answers are not kept (a page of 100 apps is about 30 kB).
      maxEntryBytes: 256 * 1024,
      bytesOf: (response, key) => Buffer.byteLength(key) + Buffer.byteLength(response.body),
    });
  }
}
