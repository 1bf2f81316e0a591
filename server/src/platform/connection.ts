import { ClassType, Field, ObjectType } from 'type-graphql';
import { badInput } from './errors.js';

@ObjectType()
export class PageInfo {
  @Field()
  hasNextPage: boolean;

  @Field(() => String, { nullable: true })
  endCursor: string | null;
}

export interface Edge<T> {
  cursor: string;
  node: T;
}
export interface Connection<T> {
  edges: Edge<T>[];
  pageInfo: PageInfo;
}

/** A Relay connection type named `<name>Connection` with `<name>Edge` edges. */
export function ConnectionType<T extends object>(NodeType: ClassType<T>, name: string) {
  @ObjectType(`${name}Edge`)
  class EdgeType {
    @Field()
    cursor: string;

    @Field(() => NodeType)
    node: T;
  }

  @ObjectType(`${name}Connection`)
  class ConnectionClass {
    @Field(() => [EdgeType])
    edges: EdgeType[];

    @Field(() => PageInfo)
    pageInfo: PageInfo;
  }
  return ConnectionClass;
}

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

export function pageSize(first: number | undefined | null): number {
  if (first === undefined || first === null) return DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(first) || first < 1 || first > MAX_PAGE_SIZE) throw badInput('first', `first must be between 1 and ${MAX_PAGE_SIZE}`);
  return first;
}

/** Cursors are opaque to clients: base64url of the keyset values of the last row seen. */
export function encodeCursor(values: (string | number)[]): string {
  return Buffer.from(JSON.stringify(values)).toString('base64url');
}

export function decodeCursor(cursor: string | undefined | null, shape: ('string' | 'number')[]): (string | number)[] | undefined {
  if (cursor === undefined || cursor === null) return undefined;
  try {
    const values = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    // No cursor given out holds a NUL, and PostgreSQL would fail on one instead of answering.
    const wellFormed = (v: unknown, i: number) => typeof v === shape[i] && !(typeof v === 'string' && v.includes('\u0000'));
    if (Array.isArray(values) && values.length === shape.length && values.every(wellFormed)) return values;
  } catch {
    /* reported below */
  }
  throw badInput('after', 'after is not a cursor this list gave out');
}

/** Builds a page from `limit + 1` fetched rows: the extra row only says whether there is a next page. */
export function toConnection<T>(rows: T[], limit: number, cursorOf: (row: T) => (string | number)[]): Connection<T> {
  const page = rows.slice(0, limit);
  const edges = page.map((node) => ({ node, cursor: encodeCursor(cursorOf(node)) }));
  return { edges, pageInfo: { hasNextPage: rows.length > limit, endCursor: edges.at(-1)?.cursor ?? null } };
}
