import { beforeAll, describe, expect, it } from 'vitest';
import { submitApp } from './helpers/factories.js';
import type { GraphQLTestClient } from './helpers/graphql-client.js';
import { startTestPlaza, type TestPlaza } from './helpers/plaza.js';
import { WebhookReceiver } from './helpers/webhook-receiver.js';
import { emitEvent, waitForDelivery } from './helpers/webhooks.js';

// Issue 24 item 14: webhookDelivery(id) shows the delivery and its attempts as of one moment. A result lands
// (attempt finished and status moved on, in one transaction) while the read is under way: the read shows
// both before it or both after it, never a finished attempt beside the status that preceded it.

const DELIVERY = 'query($id: ID!) { webhookDelivery(id: $id) { id status attemptCount attempts { number outcome finished } } }';

let plaza: TestPlaza;
let developer: GraphQLTestClient;

beforeAll(async () => {
  // The receiver never answers: the attempt stays in flight for the whole test (WEBHOOK_TIMEOUT), its result written by the test.
  plaza = await startTestPlaza({ WEBHOOK_TIMEOUT: '30s', WEBHOOK_CLAIM_LEASE: '40s' });
  developer = await plaza.signIn('snapshot@studio.test');
});

describe('webhookDelivery(id)', () => {
  it('reads the delivery and its attempts in one snapshot: a result committed while the read is under way shows whole, status and attempt alike', async () => {
    const receiver = await WebhookReceiver.start(() => 'hang');
    const app = await submitApp(developer, { webhookUrl: receiver.url() });
    const delivery = await emitEvent(plaza, app.id);
    const before = await waitForDelivery(developer, delivery.id, (d) => d.attempts.length === 1);
    expect(before).toMatchObject({ status: 'PENDING', attempts: [{ number: 1, finished: false }] });

    // The result is written inside a transaction that holds webhook_attempts exclusively, so a read that
    // has already read the delivery's row waits on the attempts, and carries on only once the result is
    // committed. A read in one statement waits before it reads anything.
    const writer = plaza.services.db.createQueryRunner();
    await writer.connect();
    try {
      await writer.startTransaction();
      await writer.query('LOCK TABLE webhook_attempts IN ACCESS EXCLUSIVE MODE');
      const read = developer.ok<{ webhookDelivery: any }>(DELIVERY, { id: delivery.id });
      // The API's read of the attempts waiting on the lock: a reader's lock (the worker's statements, which write them, ask a stronger one).
      await expect
        .poll(
          async () =>
            (await writer.query(`SELECT count(*)::int AS n FROM pg_locks WHERE NOT granted AND relation = 'webhook_attempts'::regclass AND mode = 'AccessShareLock'`))[0].n,
          { timeout: 20_000, interval: 20 },
        )
        .toBe(1);
      // A result as the engine writes one: the attempt moved from those in flight to those recorded with its
      // outcome, and the delivery settled, in one transaction.
      await writer.query(
        `WITH started AS (DELETE FROM webhook_open_attempts WHERE delivery_id = $1 AND number = 1 RETURNING *)
         INSERT INTO webhook_attempts (delivery_id, number, trigger, started_at, duration_ms, status_code, finished)
         SELECT delivery_id, number, trigger, started_at, 7, 200, true FROM started`,
        [delivery.id],
      );
      await writer.query(
        `UPDATE webhook_deliveries SET status = 'SUCCEEDED', next_attempt_at = NULL, claim_token = NULL, claim_expires_at = NULL, updated_at = clock_timestamp() WHERE id = $1`,
        [delivery.id],
      );
      await writer.commitTransaction();

      const { webhookDelivery: seen } = await read;
      expect(seen).toEqual({ id: delivery.id, status: 'SUCCEEDED', attemptCount: 1, attempts: [{ number: 1, outcome: 'SUCCEEDED', finished: true }] });
    } finally {
      if (writer.isTransactionActive) await writer.rollbackTransaction();
      await writer.release();
    }
  }, 60_000);
});
