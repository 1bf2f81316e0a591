import { EventSubscriber, type EntityManager, type EntitySubscriberInterface, type QueryRunner } from 'typeorm';
import type { TransactionCommitEvent } from 'typeorm/subscriber/event/TransactionCommitEvent.js';
import type { TransactionRollbackEvent } from 'typeorm/subscriber/event/TransactionRollbackEvent.js';
import { logger } from './logger.js';

const pending = new WeakMap<QueryRunner, (() => void)[]>();

/**
 * Runs `callback` once the transaction of `manager` has committed (at once outside a transaction),
 * and never if it rolls back. For side effects that must not happen for work that did not commit.
 */
export function afterCommit(manager: EntityManager, callback: () => void): void {
  const runner = manager.queryRunner;
  if (!runner?.isTransactionActive) {
    callback();
    return;
  }
  const callbacks = pending.get(runner) ?? [];
  callbacks.push(callback);
  pending.set(runner, callbacks);
}

/** The TypeORM subscriber behind afterCommit; registered on the data source (which only takes decorated classes). */
@EventSubscriber()
export class AfterCommitHooks implements EntitySubscriberInterface {
  afterTransactionCommit(event: TransactionCommitEvent): void {
    // Also broadcast when a savepoint is released; only the outermost commit counts.
    if (event.queryRunner.isTransactionActive) return;
    const callbacks = pending.get(event.queryRunner);
    pending.delete(event.queryRunner);
    for (const callback of callbacks ?? []) {
      try {
        callback();
      } catch (err) {
        logger.error({ err }, 'an after-commit callback failed');
      }
    }
  }

  afterTransactionRollback(event: TransactionRollbackEvent): void {
    if (!event.queryRunner.isTransactionActive) pending.delete(event.queryRunner);
  }
}
