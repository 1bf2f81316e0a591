import { GraphQLSafeInt } from 'graphql-scalars';
import type { ValueTransformer } from 'typeorm';
import { PlazaError, ErrorCode } from './errors.js';

/**
 * Money and points are stored as 64-bit `bigint`, which pg hands over as decimal strings. JavaScript
 * numbers hold integers exactly up to 2^53 - 1 (Number.MAX_SAFE_INTEGER, about 9 quadrillion VND), so
 * they are read as numbers, and a value past that is an error instead of a silently rounded amount.
 */
export function toSafeInteger(value: string | number | bigint): number {
  const parsed = typeof value === 'number' ? value : Number(value);
  if (!Number.isSafeInteger(parsed)) throw new Error(`${String(value)} is not an integer JavaScript holds exactly (beyond ±${Number.MAX_SAFE_INTEGER})`);
  return parsed;
}

/** For `bigint` columns: numbers in the entity, exact or an error (see toSafeInteger). */
export const int64Column: ValueTransformer = {
  to: (value: number | null | undefined) => value,
  from: (value: string | number | null) => (value === null || value === undefined ? value : toSafeInteger(value)),
};

/** The GraphQL scalar for 64-bit amounts: a JSON number, exact up to 2^53 - 1 (graphql-scalars' SafeInt). */
export const SafeInt = GraphQLSafeInt;

const INT32_MAX = 2_147_483_647;

/**
 * A value for one of the contract's 32-bit `Int` fields. graphql-js would refuse a larger one with a
 * masked internal error; this says which field to read instead.
 */
export function int32Field(value: number, field: string, exactField: string): number {
  if (Math.abs(value) <= INT32_MAX) return value;
  throw new PlazaError(
    ErrorCode.BAD_USER_INPUT,
    `${field} is ${value}, more than a GraphQL Int can carry (${INT32_MAX}); select ${exactField} instead, which is exact`,
    field,
    'INT_OVERFLOW',
  );
}
