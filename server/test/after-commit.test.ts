import { describe, expect, it } from 'vitest';
import { afterCommit } from '../src/platform/after-commit.js';
import { startTestPlaza } from './helpers/plaza.js';

describe('afterCommit', () => {
  it('runs after the outermost commit, not before it, and never after a rollback', async () => {
    const plaza = await startTestPlaza({ RUN_WORKER: 'false' });
    const { db } = plaza.services;
    const seen: string[] = [];
    await db.transaction(async (manager) => {
      afterCommit(manager, () => seen.push('committed'));
      await manager.transaction(async (nested) => afterCommit(nested, () => seen.push('nested')));
      expect(seen).toEqual([]); // a released savepoint is not the commit
    });
    expect(seen).toEqual(['committed', 'nested']);
    await expect(
      db.transaction(async (manager) => {
        afterCommit(manager, () => seen.push('rolled back'));
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    expect(seen).toEqual(['committed', 'nested']);
  });
});
