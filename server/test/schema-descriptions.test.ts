import 'reflect-metadata';
import { describe, expect, it } from 'vitest';
import { isEnumType, isInputObjectType, isInterfaceType, isObjectType, isSpecifiedScalarType, type GraphQLSchema } from 'graphql';
import { buildPlazaSchema } from '../src/app/schema.js';

/** Every schema coordinate (Type, Type.field, Type.field(arg:), Enum.VALUE) that GraphiQL would show without a description. */
function undescribed(schema: GraphQLSchema): string[] {
  const missing: string[] = [];
  const blank = (text: string | null | undefined) => !text || text.trim() === '';
  // Query, Mutation and Subscription only group the operations; each operation carries its own description.
  const roots = new Set([schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()].filter(Boolean));
  for (const type of Object.values(schema.getTypeMap())) {
    if (type.name.startsWith('__') || isSpecifiedScalarType(type)) continue;
    if (!roots.has(type as never) && blank(type.description)) missing.push(type.name);
    if (isObjectType(type) || isInterfaceType(type)) {
      for (const field of Object.values(type.getFields())) {
        if (blank(field.description)) missing.push(`${type.name}.${field.name}`);
        for (const arg of field.args) if (blank(arg.description)) missing.push(`${type.name}.${field.name}(${arg.name}:)`);
      }
    } else if (isInputObjectType(type)) {
      for (const field of Object.values(type.getFields())) if (blank(field.description)) missing.push(`${type.name}.${field.name}`);
    } else if (isEnumType(type)) {
      for (const value of type.getValues()) if (blank(value.description)) missing.push(`${type.name}.${value.name}`);
    }
  }
  return missing.sort();
}

describe('the GraphQL schema as GraphiQL shows it', () => {
  it('describes every type, field, argument, input field and enum value', async () => {
    const missing = undescribed(await buildPlazaSchema());
    expect(missing, `${missing.length} without a description:\n${missing.join('\n')}`).toEqual([]);
  });
});
