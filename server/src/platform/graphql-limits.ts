import {
  getNamedType,
  getNullableType,
  getOperationAST,
  getVariableValues,
  isInterfaceType,
  isIntrospectionType,
  isListType,
  isObjectType,
  Kind,
  type ASTVisitor,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLInterfaceType,
  type GraphQLNamedType,
  type GraphQLObjectType,
  type GraphQLSchema,
  type SelectionNode,
  type SelectionSetNode,
  type ValidationContext,
  type ValidationRule,
  visit,
} from 'graphql';
import { DEFAULT_PAGE_SIZE } from './connection.js';
import { introspectionPricer } from './introspection-cost.js';
import { ErrorCode, PlazaError } from './errors.js';

/**
 * What one GraphQL document may ask of the server, over HTTP and graphql-ws alike. Set so that the
 * web app's heaviest screen and GraphiQL's introspection pass with room to spare, while a document
 * built to exhaust the server (deep nesting, thousands of aliases, huge pages of huge pages) does not.
 */
export const GRAPHQL_LIMITS = {
  /** Nested selection sets; GraphiQL's introspection query is 13 deep (its TypeRef fragment). */
  maxDepth: 15,
  /** Aliased fields in one document: aliases are how one request repeats an expensive field. */
  maxAliases: 30,
  /** Lexical tokens in one document, checked while parsing so a huge document costs little. */
  maxTokens: 5_000,
  /**
   * Estimated cost: 1 per field, and a list field's selection counted once per item it may return.
   * GraphiQL's introspection of the whole schema answers about 6,000 fields (75 types), each costing 1:
   * introspection-cost.test.ts fails when the schema outgrows this.
   */
  maxCost: 10_000,
} as const;

const tooMuch = (message: string, reason: string) => new PlazaError(ErrorCode.BAD_USER_INPUT, message, undefined, reason);

/** Fragment definitions by name: the one place every walk below looks a spread up. */
function fragmentsOf(document: DocumentNode): Map<string, FragmentDefinitionNode> {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  return fragments;
}

/**
 * A fragment's value computed once per document however often it is spread: `...F ...F` in each of
 * n fragments would otherwise walk the last one 2^n times (a 1 KB document froze the server for a
 * minute). A fragment met again while its own value is being computed is a cycle, which graphql-js
 * refuses on its own; it counts `inCycle` here so the walk ends (graphql-ws prices before validating).
 */
function memoisedByFragment<T>(fragments: Map<string, FragmentDefinitionNode>, compute: (fragment: FragmentDefinitionNode) => T, inCycle: T): (name: string) => T | undefined {
  const values = new Map<string, T>();
  const computing = new Set<string>();
  return (name) => {
    const known = values.get(name);
    if (known !== undefined) return known;
    const fragment = fragments.get(name);
    if (!fragment) return undefined;
    if (computing.has(name)) return inCycle;
    computing.add(name);
    const value = compute(fragment);
    computing.delete(name);
    values.set(name, value);
    return value;
  };
}

/** How many fields deep a selection set of `document` goes; each fragment is walked once for all of them. */
function depthMeter(document: DocumentNode): (selectionSet: SelectionSetNode | undefined) => number {
  const depthOf = (selectionSet: SelectionSetNode | undefined): number => {
    if (!selectionSet) return 0;
    let deepest = 0;
    for (const selection of selectionSet.selections) {
      const depth =
        selection.kind === Kind.FIELD
          ? 1 + depthOf(selection.selectionSet)
          : selection.kind === Kind.INLINE_FRAGMENT
            ? depthOf(selection.selectionSet)
            : (fragmentDepth(selection.name.value) ?? 0);
      if (depth > deepest) deepest = depth;
    }
    return deepest;
  };
  const fragmentDepth = memoisedByFragment(fragmentsOf(document), (fragment) => depthOf(fragment.selectionSet), 0);
  return depthOf;
}

/** Refuses documents nested deeper than `maxDepth` (fragments are followed; a fragment cycle is graphql-js's own error). */
export function depthLimit(maxDepth: number): ValidationRule {
  return (context: ValidationContext): ASTVisitor => {
    const depthOf = depthMeter(context.getDocument());
    return {
      OperationDefinition(operation) {
        const depth = depthOf(operation.selectionSet);
        if (depth > maxDepth) context.reportError(tooMuch(`The query is nested ${depth} levels deep; at most ${maxDepth} are allowed`, 'QUERY_TOO_DEEP'));
      },
    };
  };
}

/** Refuses documents with more than `maxAliases` aliased fields. */
export function aliasLimit(maxAliases: number): ValidationRule {
  return (context: ValidationContext): ASTVisitor => {
    let aliases = 0;
    return {
      Field(field) {
        if (field.alias) aliases += 1;
      },
      Document: {
        leave() {
          if (aliases > maxAliases) context.reportError(tooMuch(`The query uses ${aliases} aliases; at most ${maxAliases} are allowed`, 'TOO_MANY_ALIASES'));
        },
      },
    };
  };
}

/** The rules every document passes before it runs, on HTTP and graphql-ws. */
export const limitRules: ValidationRule[] = [depthLimit(GRAPHQL_LIMITS.maxDepth), aliasLimit(GRAPHQL_LIMITS.maxAliases)];

/**
 * The most items a list field without a `first` returns, by `Type.field`, for the cost estimate: the
 * list's selection counts once per item it may return. Bounds that come from configuration are
 * declared on the schema at start-up (`declareListBounds`); a test checks every list of objects in the
 * schema has one. Edges of a connection are counted by the `first` of the field that returned it.
 */
export const LIST_BOUNDS: Readonly<Record<string, number>> = {
  /** The fixed category list (twelve). */
  'Query.categories': 12,
  /** The newest 100 entries (SecretsService.auditTrail). */
  'App.clientSecretAudit': 100,
  /** One per reviewed version, and only reviewers add them: not something a caller can grow. */
  'App.reviewDecisions': 20,
  /** Two checks of the App URL, two of the icon. */
  'PreCheckReport.results': 4,
  /** The headers Plaza sends with a webhook. */
  'DeliveryAttempt.requestHeaders': 16,
  /** Six scheduled attempts and a few redeliveries. */
  'WebhookDelivery.attempts': 10,
  /** The headers of a webhook request handed to plaza listen, as for an attempt. */
  'WebhookForwardRequest.headers': 16,
  /** The newest 100 local forwards of a delivery (LocalForwardService.list). */
  'Query.webhookLocalForwards': 100,
  /** Charts (modules/insights): 168 hourly buckets at most (LAST_7_DAYS). */
  'WebhookDeliveryStats.buckets': 168,
  /** 30 days, or 12 weeks or months. */
  'DeveloperEarnings.buckets': 30,
  /** The last 60 minutes. */
  'PlatformStats.deliveriesPerMinute': 60,
  /** The oldest 100 pending submissions (REVIEW_QUEUE_LIMIT). */
  'PlatformStats.reviewQueue': 100,
  /** The 10 apps failing most (FAILING_APPS_LIMIT). */
  'PlatformStats.appsFailingMost': 10,
  'Query.myLibrary': 100,
  /** A developer's newest other apps, as a reviewer sees them (the review feature's OTHER_APPS_SHOWN). */
  'AppDeveloper.otherApps': 20,
};

/** What an undeclared list is counted as: a default page. */
const UNDECLARED_LIST_BOUND = DEFAULT_PAGE_SIZE;

/** Bounds known only once configuration is read (myApps: MAX_APPS_PER_DEVELOPER), per schema. */
const declaredBounds = new WeakMap<GraphQLSchema, Readonly<Record<string, number>>>();

/** Declares list bounds that come from configuration, for documents run against `schema`. */
export function declareListBounds(schema: GraphQLSchema, bounds: Readonly<Record<string, number>>): void {
  declaredBounds.set(schema, { ...declaredBounds.get(schema), ...bounds });
}

/** The bound the estimate uses for `Type.field`, or undefined when neither table has one. */
export function listBoundOf(schema: GraphQLSchema, coordinate: string): number | undefined {
  return declaredBounds.get(schema)?.[coordinate] ?? LIST_BOUNDS[coordinate];
}

/**
 * Throws BAD_USER_INPUT (reason QUERY_TOO_COMPLEX) when the operation's estimated cost is over the
 * limit. Needs the variables (a `first: $n` is only known then), so it runs after validation.
 */
function assertCostWithinLimit(schema: GraphQLSchema, document: DocumentNode, variables: Record<string, unknown> | undefined, operationName: string | undefined | null): void {
  // Keyed by the variables as sent: the coerced values the estimate prices follow from them and the document.
  const { cost, introspects } = remembered(costs, schema, document, `${operationName ?? ''}\u0000${JSON.stringify(variables ?? {})}`, () =>
    priceOperation(schema, document, variables ?? {}, operationName ?? undefined),
  );
  if (cost > GRAPHQL_LIMITS.maxCost) {
    const shown = cost >= COST_CEILING ? `more than ${GRAPHQL_LIMITS.maxCost}` : String(cost);
    const advice = introspects ? 'introspection costs 1 for every field it would answer: ask for the schema once' : 'ask for smaller pages or fewer fields';
    throw tooMuch(`The query would cost ${shown}; at most ${GRAPHQL_LIMITS.maxCost} is allowed (${advice})`, 'QUERY_TOO_COMPLEX');
  }
}

/**
 * Apollo hands back the same parsed document for the same query text, so what depends only on the
 * document (its literals) or on it and short variables (its cost) is worked out once per document and
 * kept with it. Walking the document again cost the Webhook Logs page about 50 µs of its 1 ms of server CPU.
 */
const costs = new WeakMap<GraphQLSchema, WeakMap<DocumentNode, Map<string, Price>>>();
/** Variables longer than this (inputs, not page sizes) are not kept as keys: priced again each time. */
const REMEMBERED_KEY_CHARS = 256;
/** Distinct variable sets kept per document; past it the list starts again. */
const REMEMBERED_PER_DOCUMENT = 64;

function remembered(kept: typeof costs, schema: GraphQLSchema, document: DocumentNode, key: string, compute: () => Price): Price {
  if (key.length > REMEMBERED_KEY_CHARS) return compute();
  let bySchema = kept.get(schema);
  if (!bySchema) kept.set(schema, (bySchema = new WeakMap()));
  let byKey = bySchema.get(document);
  if (!byKey) bySchema.set(document, (byKey = new Map()));
  let value = byKey.get(key);
  if (value === undefined) {
    value = compute();
    if (byKey.size >= REMEMBERED_PER_DOCUMENT) byKey.clear();
    byKey.set(key, value);
  }
  return value;
}

/** Documents whose literals hold no NUL (checked once: a document's literals never change). */
const documentsWithoutNul = new WeakSet<DocumentNode>();

/**
 * Steps (fields, spreads, inline fragments) the introspection walks of one document may take: twice
 * the cost limit, as each answered field costs 1. GraphiQL's full introspection takes about 8,000.
 */
const INTROSPECTION_STEPS = 2 * GRAPHQL_LIMITS.maxCost;

/** Estimates stop growing here: a document of fragments spread twice over can be priced at 2^1000. */
const COST_CEILING = Number.MAX_SAFE_INTEGER;

/** An operation's estimated cost, and whether introspection is part of it (the refusal then says what that costs). */
interface Price {
  cost: number;
  introspects: boolean;
}

/**
 * 1 per field (or the `complexity` a type-graphql field declares), and a list's selection counted
 * once per item it may return: a paged field (one with a `first` argument) by its `first` or `last`, any other
 * list by its bound (`LIST_BOUNDS`). Introspection (`__schema`, `__type`) costs 1 for every field it
 * would answer, counted on the schema itself (introspection-cost.ts). Variables are priced as coerced,
 * defaults included. Each fragment is priced once per document and its price reused
 * at every spread (variables and @skip/@include are fixed for the whole operation, and a fragment's
 * type condition fixes its fields), so pricing is linear in the document's size. Written here rather
 * than taken from graphql-query-complexity, whose ESM build loads graphql's CommonJS files: a second
 * graphql instance that breaks the schema outside the test runner.
 */
export function estimateCost(schema: GraphQLSchema, document: DocumentNode, sent: Record<string, unknown>, operationName?: string): number {
  return priceOperation(schema, document, sent, operationName).cost;
}

function priceOperation(schema: GraphQLSchema, document: DocumentNode, sent: Record<string, unknown>, operationName?: string): Price {
  const operation = getOperationAST(document, operationName);
  const root = operation && schema.getRootType(operation.operation);
  if (!operation || !root) return { cost: 0, introspects: false };
  // Priced with the values the operation runs with: `$n: Int = 100` sent without n is 100, not a default page.
  // Variables that do not coerce are refused before anything runs, so what was sent prices them.
  const variables = getVariableValues(schema, operation.variableDefinitions ?? [], sent).coerced ?? sent;

  const included = (node: SelectionNode) =>
    (node.directives ?? []).every((directive) => {
      const argument = directive.arguments?.find((a) => a.name.value === 'if');
      if (!argument || (directive.name.value !== 'skip' && directive.name.value !== 'include')) return true;
      const value = argument.value.kind === Kind.VARIABLE ? variables[argument.value.name.value] : argument.value.kind === Kind.BOOLEAN ? argument.value.value : undefined;
      return directive.name.value === 'skip' ? value !== true : value !== false;
    });
  const argumentValue = (field: FieldNode, name: string) => {
    const argument = field.arguments?.find((a) => a.name.value === name);
    const value = !argument
      ? undefined
      : argument.value.kind === Kind.VARIABLE
        ? variables[argument.value.name.value]
        : argument.value.kind === Kind.INT
          ? Number(argument.value.value)
          : undefined;
    return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : undefined;
  };
  // A page is `first` items forward or `last` backward (the resolver refuses both past MAX_PAGE_SIZE).
  const pageSizeOf = (field: FieldNode) => Math.max(argumentValue(field, 'first') ?? 0, argumentValue(field, 'last') ?? 0) || DEFAULT_PAGE_SIZE;
  // How many times a field's selection is produced per parent: its page, its list bound, or once.
  const itemsOf = (parent: GraphQLObjectType | GraphQLInterfaceType, definition: GraphQLField<unknown, unknown>, field: FieldNode) => {
    if (definition.args.some((argument) => argument.name === 'first')) return pageSizeOf(field);
    if (!isListType(getNullableType(definition.type))) return 1;
    if (parent.name.endsWith('Connection') && definition.name === 'edges') return 1;
    return listBoundOf(schema, `${parent.name}.${definition.name}`) ?? UNDECLARED_LIST_BOUND;
  };
  const add = (a: number, b: number) => Math.min(a + b, COST_CEILING);

  const fragments = fragmentsOf(document);
  const introspection = introspectionPricer(schema, fragments, variables, included, { maxSteps: INTROSPECTION_STEPS, maxFields: GRAPHQL_LIMITS.maxCost });
  const queryType = schema.getQueryType();

  // Introspection's types are not the schema's own: below `__schema`/`__type` the pricer counts what they answer.
  const costOf = (selectionSet: SelectionSetNode, parent: GraphQLNamedType | undefined): number => {
    let total = 0;
    for (const selection of selectionSet.selections) {
      if (!included(selection)) continue;
      const introspected = selection.kind === Kind.FIELD && parent === queryType ? introspection.costOf(selection) : undefined;
      if (introspected !== undefined) {
        total = add(total, Math.min(introspected, COST_CEILING));
      } else if (selection.kind === Kind.FIELD) {
        const owner = parent && (isObjectType(parent) || isInterfaceType(parent)) && !isIntrospectionType(parent) ? parent : undefined;
        const definition = owner?.getFields()[selection.name.value];
        const children = selection.selectionSet ? costOf(selection.selectionSet, definition && getNamedType(definition.type)) : 0;
        const own = typeof definition?.extensions?.complexity === 'number' ? definition.extensions.complexity : 1;
        total = add(total, add(own, Math.min(children * (owner && definition ? itemsOf(owner, definition, selection) : 1), COST_CEILING)));
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        total = add(total, costOf(selection.selectionSet, selection.typeCondition ? schema.getType(selection.typeCondition.name.value) : parent));
      } else {
        total = add(total, fragmentCost(selection.name.value) ?? 0);
      }
    }
    return total;
  };
  const fragmentCost = memoisedByFragment(fragments, (fragment) => costOf(fragment.selectionSet, schema.getType(fragment.typeCondition.name.value) ?? undefined), 0);
  const cost = costOf(operation.selectionSet, root);
  return { cost, introspects: introspection.asked };
}

/**
 * PostgreSQL text cannot hold U+0000, so a NUL in any string input would fail deep in a service as
 * an internal error. Refused here once for every operation, naming the input field that carries it.
 */
function assertNoNulCharacters(document: DocumentNode, variables: Record<string, unknown> | undefined): void {
  const find = (value: unknown, field: string): string | undefined => {
    if (typeof value === 'string') return value.includes('\u0000') ? field : undefined;
    const entries: [string, unknown][] = Array.isArray(value) ? value.map((item) => [field, item]) : value && typeof value === 'object' ? Object.entries(value) : [];
    for (const [key, nested] of entries) {
      const found = find(nested, key);
      if (found) return found;
    }
    return undefined;
  };
  let field = find(variables ?? {}, 'variables');
  if (!field && !documentsWithoutNul.has(document)) {
    visit(document, {
      Argument(argument) {
        if (!field && argument.value.kind === Kind.STRING && argument.value.value.includes('\u0000')) field = argument.name.value;
      },
      ObjectField(objectField) {
        if (!field && objectField.value.kind === Kind.STRING && objectField.value.value.includes('\u0000')) field = objectField.name.value;
      },
    });
  }
  if (field) throw new PlazaError(ErrorCode.BAD_USER_INPUT, `${field} must not contain NUL characters`, field);
  documentsWithoutNul.add(document);
}

/**
 * The checks that need the operation's variables (`first: $n`, a NUL in a variable), run once they
 * are known and before anything executes: the same for HTTP and graphql-ws.
 */
export function assertOperationWithinLimits(
  schema: GraphQLSchema,
  document: DocumentNode,
  variables: Record<string, unknown> | undefined,
  operationName: string | undefined | null,
): void {
  assertNoNulCharacters(document, variables);
  assertCostWithinLimit(schema, document, variables, operationName);
}
