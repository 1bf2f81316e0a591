import {
  getNamedType,
  getOperationAST,
  isInterfaceType,
  isObjectType,
  Kind,
  type ASTVisitor,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLNamedType,
  type GraphQLSchema,
  type SelectionNode,
  type SelectionSetNode,
  type ValidationContext,
  type ValidationRule,
  visit,
} from 'graphql';
import { DEFAULT_PAGE_SIZE } from './connection.js';
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
  /** Estimated cost: 1 per field, and a list field's selection counted once per item it may return. */
  maxCost: 10_000,
} as const;

const tooMuch = (message: string, reason: string) => new PlazaError(ErrorCode.BAD_USER_INPUT, message, undefined, reason);

/** Refuses documents nested deeper than `maxDepth` (fragments are followed; a fragment cycle is graphql-js's own error). */
export function depthLimit(maxDepth: number): ValidationRule {
  return (context: ValidationContext): ASTVisitor => {
    const depthOf = (selectionSet: SelectionSetNode | undefined, depth: number, seen: Set<string>): number => {
      if (!selectionSet) return depth;
      let deepest = depth;
      for (const selection of selectionSet.selections) {
        if (selection.kind === Kind.FIELD) deepest = Math.max(deepest, depthOf(selection.selectionSet, depth + 1, seen));
        else if (selection.kind === Kind.INLINE_FRAGMENT) deepest = Math.max(deepest, depthOf(selection.selectionSet, depth, seen));
        else if (!seen.has(selection.name.value)) {
          const fragment = context.getFragment(selection.name.value);
          deepest = Math.max(deepest, depthOf(fragment?.selectionSet, depth, new Set([...seen, selection.name.value])));
        }
        if (deepest > maxDepth) return deepest;
      }
      return deepest;
    };
    return {
      OperationDefinition(operation) {
        const depth = depthOf(operation.selectionSet, 0, new Set());
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
 * Throws BAD_USER_INPUT (reason QUERY_TOO_COMPLEX) when the operation's estimated cost is over the
 * limit. Needs the variables (a `first: $n` is only known then), so it runs after validation.
 */
function assertCostWithinLimit(schema: GraphQLSchema, document: DocumentNode, variables: Record<string, unknown> | undefined, operationName: string | undefined | null): void {
  const cost = estimateCost(schema, document, variables ?? {}, operationName ?? undefined);
  if (cost > GRAPHQL_LIMITS.maxCost) throw tooMuch(`The query would cost ${cost}; at most ${GRAPHQL_LIMITS.maxCost} is allowed (ask for smaller pages or fewer fields)`, 'QUERY_TOO_COMPLEX');
}

/**
 * 1 per field (or the `complexity` a type-graphql field declares), and a paged field's selection (one
 * with a `first` argument) counted once per item it may return. Written here rather than taken from
 * graphql-query-complexity, whose ESM build loads graphql's CommonJS files: a second graphql instance
 * that breaks the schema outside the test runner.
 */
export function estimateCost(schema: GraphQLSchema, document: DocumentNode, variables: Record<string, unknown>, operationName?: string): number {
  const operation = getOperationAST(document, operationName);
  const root = operation && schema.getRootType(operation.operation);
  if (!operation || !root) return 0;
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);

  const included = (node: SelectionNode) =>
    (node.directives ?? []).every((directive) => {
      const argument = directive.arguments?.find((a) => a.name.value === 'if');
      if (!argument || (directive.name.value !== 'skip' && directive.name.value !== 'include')) return true;
      const value = argument.value.kind === Kind.VARIABLE ? variables[argument.value.name.value] : argument.value.kind === Kind.BOOLEAN ? argument.value.value : undefined;
      return directive.name.value === 'skip' ? value !== true : value !== false;
    });
  const pageSizeOf = (field: FieldNode) => {
    const argument = field.arguments?.find((a) => a.name.value === 'first');
    const value = !argument ? undefined : argument.value.kind === Kind.VARIABLE ? variables[argument.value.name.value] : argument.value.kind === Kind.INT ? Number(argument.value.value) : undefined;
    return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : DEFAULT_PAGE_SIZE;
  };

  // `parent` is undefined below introspection fields, whose types are not the schema's own: each field there costs 1.
  const costOf = (selectionSet: SelectionSetNode, parent: GraphQLNamedType | undefined, seenFragments: ReadonlySet<string>): number => {
    let total = 0;
    for (const selection of selectionSet.selections) {
      if (!included(selection)) continue;
      if (selection.kind === Kind.FIELD) {
        const definition = parent && (isObjectType(parent) || isInterfaceType(parent)) ? parent.getFields()[selection.name.value] : undefined;
        const children = selection.selectionSet ? costOf(selection.selectionSet, definition && getNamedType(definition.type), seenFragments) : 0;
        const own = typeof definition?.extensions?.complexity === 'number' ? definition.extensions.complexity : 1;
        const paged = definition?.args.some((argument) => argument.name === 'first');
        total += own + children * (paged ? pageSizeOf(selection) : 1);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        total += costOf(selection.selectionSet, selection.typeCondition ? schema.getType(selection.typeCondition.name.value) : parent, seenFragments);
      } else {
        const fragment = fragments.get(selection.name.value);
        if (!fragment || seenFragments.has(fragment.name.value)) continue;
        total += costOf(fragment.selectionSet, schema.getType(fragment.typeCondition.name.value), new Set([...seenFragments, fragment.name.value]));
      }
    }
    return total;
  };
  return costOf(operation.selectionSet, root, new Set());
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
  if (!field) {
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
}

/**
 * The checks that need the operation's variables (`first: $n`, a NUL in a variable), run once they
 * are known and before anything executes: the same for HTTP and graphql-ws.
 */
export function assertOperationWithinLimits(schema: GraphQLSchema, document: DocumentNode, variables: Record<string, unknown> | undefined, operationName: string | undefined | null): void {
  assertNoNulCharacters(document, variables);
  assertCostWithinLimit(schema, document, variables, operationName);
}
