import { describe, expect, it } from 'vitest';
import { perTickLoader } from '../src/platform/per-tick-loader.js';

/** The batching under every per-item field of a list: one load per turn, nothing kept past it. */
describe('perTickLoader', () => {
  function recording(rows: Map<string, string>) {
    const batches: string[][] = [];
    const load = perTickLoader(
      async (keys: string[]) => {
        batches.push(keys);
        return new Map(keys.filter((key) => rows.has(key)).map((key) => [key, rows.get(key)!]));
      },
      () => 'absent',
    );
    return { batches, load };
  }

  it('asks once for every key of a turn, each key once, even when a caller awaited first', async () => {
    const { batches, load } = recording(
      new Map([
        ['a', 'A'],
        ['b', 'B'],
      ]),
    );
    const late = (async () => {
      // A resolver that awaits something before it asks (here a promise, then a tick) still joins the turn's batch.
      await Promise.resolve();
      await new Promise((resolve) => process.nextTick(resolve));
      return load('b');
    })();
    const values = await Promise.all([load('a'), load('b'), load('a'), load('missing'), late]);
    expect(values).toEqual(['A', 'B', 'A', 'absent', 'B']);
    expect(batches).toEqual([['a', 'b', 'missing']]);
  });

  it('caches nothing past its batch: the next turn reads afresh', async () => {
    const rows = new Map([['a', 'first']]);
    const { batches, load } = recording(rows);
    expect(await load('a')).toBe('first');
    rows.set('a', 'second');
    expect(await load('a')).toBe('second');
    expect(batches).toEqual([['a'], ['a']]);
  });

  it('fails every caller of a batch whose load fails, and the next batch starts clean', async () => {
    let fail = true;
    const load = perTickLoader(
      async (keys: string[]) => {
        if (fail) throw new Error('database gone');
        return new Map(keys.map((key) => [key, key.toUpperCase()]));
      },
      () => '',
    );
    await expect(Promise.all([load('a'), load('b')])).rejects.toThrow('database gone');
    fail = false;
    expect(await load('a')).toBe('A');
  });
});
