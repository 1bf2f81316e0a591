import {
  getArgumentValues,
  getNamedType,
  isObjectType,
  Kind,
  SchemaMetaFieldDef,
  TypeMetaFieldDef,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLObjectType,
  type GraphQLResolveInfo,
  type GraphQLSchema,
  type SelectionNode,
  type SelectionSetNode,
} from 'graphql';

/** The root fields that answer from the schema itself, by name. */
const META_FIELDS: Readonly<Record<string, GraphQLField<unknown, unknown>>> = { __schema: SchemaMetaFieldDef, __type: TypeMetaFieldDef };

export interface IntrospectionPricer {
  /**
   * What a root `__schema` or `__type` field costs: 1 for every field of the answer it would give
   * (itself included), or undefined when `field` is not one of them. Infinity once the document's
   * introspection has taken more than its allowance of steps: it costs more than any limit then.
   */
  costOf(field: FieldNode): number | undefined;
  /** Whether the document asked for introspection (priced by costOf) at all. */
  readonly asked: boolean;
}

/**
 * Introspection answers from the schema, not the database, so its size is known before it runs: the
 * selection is walked over the real schema with introspection's own resolvers, counting each field it
 * would answer. `__schema { types { fields { … } } }` is thus priced at what it returns (the whole
 * schema: thousands of fields), where pricing it like any list would count a few. The walks of one
 * document share `maxSteps` (fields, spreads and inline fragments visited) and stop once they have
 * counted more than `maxFields`: a document asking for the schema thirty times over is refused having
 * walked it about twice.
 */
export function introspectionPricer(
  schema: GraphQLSchema,
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
  variables: Record<string, unknown>,
  included: (node: SelectionNode) => boolean,
  { maxSteps, maxFields }: { maxSteps: number; maxFields: number },
): IntrospectionPricer {
  // Introspection's resolvers read nothing of `info` but the schema (__schema, __type, possibleTypes).
  const info = { schema } as GraphQLResolveInfo;
  let steps = 0;
  let fieldsCounted = 0;
  let asked = false;
  const OUT_OF_STEPS = Symbol('out of steps');
  const step = () => {
    if (++steps > maxSteps) throw OUT_OF_STEPS;
  };

  const resolve = (definition: GraphQLField<unknown, unknown>, field: FieldNode, source: unknown): unknown => {
    const args = getArgumentValues(definition, field, variables);
    return definition.resolve ? definition.resolve(source, args, undefined, info) : (source as Record<string, unknown>)[definition.name];
  };

  // The fields `selectionSet` answers for one object `source` of introspection type `type`.
  const count = (selectionSet: SelectionSetNode, type: GraphQLObjectType, source: unknown): number => {
    let fields = 0;
    for (const selection of selectionSet.selections) {
      if (!included(selection)) continue;
      step();
      if (selection.kind === Kind.FIELD) {
        fields += 1;
        // Every field counted here is in the document's cost at least once: past the limit, it is refused anyway.
        if (++fieldsCounted > maxFields) throw OUT_OF_STEPS;
        const definition = type.getFields()[selection.name.value];
        if (selection.selectionSet && definition) fields += countValue(selection.selectionSet, definition, selection, source);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        // Introspection's types are object types: a valid condition names `type` itself.
        fields += count(selection.selectionSet, type, source);
      } else {
        const fragment = fragments.get(selection.name.value);
        if (fragment) fields += count(fragment.selectionSet, type, source);
      }
    }
    return fields;
  };
  // The fields answered under one field whose value (an object, a list of them or null) is resolved from `source`.
  const countValue = (selectionSet: SelectionSetNode, definition: GraphQLField<unknown, unknown>, field: FieldNode, source: unknown): number => {
    const type = getNamedType(definition.type);
    if (!isObjectType(type)) return 0;
    const value = resolve(definition, field, source);
    let fields = 0;
    for (const item of Array.isArray(value) ? value : [value]) if (item !== null && item !== undefined) fields += count(selectionSet, type, item);
    return fields;
  };

  return {
    costOf(field) {
      const definition = META_FIELDS[field.name.value];
      if (!definition) return undefined;
      asked = true;
      if (steps > maxSteps || fieldsCounted > maxFields) return Infinity;
      try {
        return 1 + (field.selectionSet ? countValue(field.selectionSet, definition, field, undefined) : 0);
      } catch (err) {
        if (err === OUT_OF_STEPS) return Infinity;
        // Arguments that do not coerce (a required variable left out): refused before anything runs.
        return 1;
      }
    },
    get asked() {
      return asked;
    },
  };
}
