import { ClassType, Field, ObjectType } from 'type-graphql';
import { badInput } from './errors.js';

// simpleResolvers: plain properties read without a type-graphql resolver per field (no middleware or auth on them),
// which the compiled executor then reads inline: a page of 20 made 60 resolver calls on these types alone.
@ObjectType({ description: 'Where a page sits in its list, and the cursors to page on from it', simpleResolvers: true })
export class PageInfo {
  @Field({ description: "More items follow this page (in the list's order); with `before`, the items from that cursor on" })
  hasNextPage: boolean;

  @Field({ description: 'Items come before this page; with `after`, the items up to that cursor' })
  hasPreviousPage: boolean;

  @Field(() => String, { nullable: true, description: 'Cursor of the first item of this page; pass as `before` for the page before it' })
  startCursor: string | null;

  @Field(() => String, { nullable: true, description: 'Cursor of the last item of this page; pass as `after` for the page after it' })
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

/** The descriptions of the Relay paging arguments, the same on every list. */
export const PAGE_ARGS = {
  first: 'Page forward: at most this many items (1..100, 20 by default)',
  after: 'Page forward from this cursor (an endCursor this list gave out)',
  last: 'Page backward: at most this many items (1..100); not together with first',
  before: 'Page backward from this cursor (a startCursor this list gave out)',
} as const;

/** A Relay connection type named `<name>Connection` with `<name>Edge` edges. */
export function ConnectionType<T extends object>(NodeType: ClassType<T>, name: string) {
  @ObjectType(`${name}Edge`, { description: `One ${name} in a page, with its cursor`, simpleResolvers: true })
  class EdgeType {
    @Field({ description: 'Opaque; pass as after or before to page on from this item' })
    cursor: string;

    @Field(() => NodeType, { description: `The ${name}` })
    node: T;
  }

  @ObjectType(`${name}Connection`, { description: `A page of ${name} items (Relay connection)`, simpleResolvers: true })
  class ConnectionClass {
    @Field(() => [EdgeType], { description: 'The items of this page, in the list’s order' })
    edges: EdgeType[];

    @Field(() => PageInfo, { description: 'Whether there are more items, and the cursors to page on' })
    pageInfo: PageInfo;
  }
  return ConnectionClass;
}

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

export function pageSize(first: number | undefined | null, field: 'first' | 'last' = 'first'): number {
  if (first === undefined || first === null) return DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(first) || first < 1 || first > MAX_PAGE_SIZE) throw badInput(field, `${field} must be between 1 and ${MAX_PAGE_SIZE}`);
  return first;
}

/** Relay paging arguments: `first`/`after` page forward through a list in its order, `last`/`before` backward. */
export interface PageArgs {
  first?: number | null;
  after?: string | null;
  last?: number | null;
  before?: string | null;
}

/**
 * What a list asks its store for: `limit + 1` rows past `after` and before `before`, in the list's
 * order, or (when `backward`) in the reverse order, starting next to `before`.
 */
export interface Page<Cursor extends (string | number)[] = (string | number)[]> {
  limit: number;
  backward: boolean;
  after: Cursor | undefined;
  before: Cursor | undefined;
}

/** What a list's cursors hold, position by position, e.g. ['string', 'string'] for (time, id). */
export type CursorShape = readonly ('string' | 'number')[];
/** The values of a cursor of that shape: a tuple, so each position has its own type and is there. */
export type CursorValues<Shape extends CursorShape> = { -readonly [K in keyof Shape]: Shape[K] extends 'string' ? string : number };

/**
 * Reads the paging arguments of a list whose cursors hold `shape`. `last`, or `before` without
 * `first`, pages backward; asking for both ends at once has no single meaning, so it is refused.
 */
export function readPage<const Shape extends CursorShape>(args: PageArgs, shape: Shape): Page<CursorValues<Shape>> {
  const hasFirst = args.first !== undefined && args.first !== null;
  const hasLast = args.last !== undefined && args.last !== null;
  if (hasFirst && hasLast) throw badInput('last', 'Give first (with after) to page forward or last (with before) to page backward, not both');
  const backward = hasLast || (!hasFirst && args.before !== undefined && args.before !== null);
  return {
    limit: backward ? pageSize(args.last, 'last') : pageSize(args.first),
    backward,
    after: decodeCursor(args.after, shape),
    before: decodeCursor(args.before, shape, 'before'),
  };
}

/** Cursors are opaque to clients: base64url of the keyset values of the last row seen. */
export function encodeCursor(values: (string | number)[]): string {
  return Buffer.from(JSON.stringify(values)).toString('base64url');
}

export function decodeCursor<const Shape extends CursorShape>(
  cursor: string | undefined | null,
  shape: Shape,
  field: 'after' | 'before' = 'after',
): CursorValues<Shape> | undefined {
  if (cursor === undefined || cursor === null) return undefined;
  try {
    const values = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    // No cursor given out holds a NUL, and PostgreSQL would fail on one instead of answering.
    const wellFormed = (v: unknown, i: number) => typeof v === shape[i] && !(typeof v === 'string' && v.includes('\u0000'));
    // Checked position by position just above, so the values are the shape's tuple.
    if (Array.isArray(values) && values.length === shape.length && values.every(wellFormed)) return values as CursorValues<Shape>;
  } catch {
    /* reported below */
  }
  throw badInput(field, `${field} is not a cursor this list gave out`);
}

/** Years PostgreSQL reads in toISOString's form (no year 0, no six-digit "+010000" years). */
const CURSOR_TIME_MIN = Date.parse('0001-01-01T00:00:00.000Z');
const CURSOR_TIME_MAX = Date.parse('9999-12-31T23:59:59.999Z');

/** The time in a list cursor, exactly as toISOString wrote it; anything else was never given out and would fail the query. */
export function cursorTime(value: string | number, field: 'after' | 'before' = 'after'): string {
  const ms = typeof value === 'string' ? Date.parse(value) : NaN;
  if (!(ms >= CURSOR_TIME_MIN && ms <= CURSOR_TIME_MAX) || new Date(ms).toISOString() !== value) throw badInput(field, `${field} is not a cursor this list gave out`);
  return value;
}

/**
 * Builds a page from `limit + 1` fetched rows (in reverse order when paging backward): the extra row
 * only says whether the list goes on in the direction of travel. Behind the direction of travel, a
 * cursor given means there are items: the ones up to it, which the client has already seen.
 */
export function toConnection<T>(rows: T[], { limit, backward, after, before }: Page, cursorOf: (row: T) => (string | number)[]): Connection<T> {
  const more = rows.length > limit;
  const nodes = rows.slice(0, limit);
  if (backward) nodes.reverse();
  const edges = nodes.map((node) => ({ node, cursor: encodeCursor(cursorOf(node)) }));
  return {
    edges,
    pageInfo: {
      hasNextPage: (!backward && more) || before !== undefined,
      hasPreviousPage: (backward && more) || after !== undefined,
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges.at(-1)?.cursor ?? null,
    },
  };
}
