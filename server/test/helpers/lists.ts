/**
 * A list known to hold at least N items: the first N are typed as there, so a test can take them
 * without a check (`const [first, second] = await receiver.waitForRequests(2)`). A count that is not
 * a literal gives a plain array.
 */
export type AtLeast<N extends number, T, Known extends T[] = []> = number extends N ? T[] : Known['length'] extends N ? [...Known, ...T[]] : AtLeast<N, T, [...Known, T]>;

/** The first item of a list a fixture needs to be there; fails with what was missing instead of a TypeError later. */
export function first<T>(items: readonly T[], what: string): T {
  const item = items[0];
  if (item === undefined) throw new Error(`expected ${what}, found none`);
  return item;
}

/** Items taken in turn: the i-th goes round the list. */
export function roundRobin<T>(items: readonly T[], i: number): T {
  const item = items[i % items.length];
  if (item === undefined) throw new Error('roundRobin needs at least one item');
  return item;
}
