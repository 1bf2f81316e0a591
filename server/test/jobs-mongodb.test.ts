import { describe, expect, it } from 'vitest';
import { startTestPlaza } from './helpers/plaza.js';
import { submitApp } from './helpers/factories.js';
import { WebhookReceiver } from './helpers/webhook-receiver.js';
import { emitEvent, isFinal, waitForDelivery } from './helpers/webhooks.js';

/**
 * Agenda's MongoDB job store. No MongoDB server can be installed on Plaza's CI machines, so this runs
 * only where MONGODB_URL points at one (e.g. MONGODB_URL=mongodb://localhost:27017/plaza pnpm test);
 * the README says so. The deliveries themselves still live in PostgreSQL.
 */
describe.runIf(process.env.MONGODB_URL)('deliveries with Agenda on MongoDB', () => {
  it('delivers and retries as on PostgreSQL', async () => {
    const plaza = await startTestPlaza({ JOBS_BACKEND: 'mongodb', MONGODB_URL: process.env.MONGODB_URL!, WEBHOOK_RETRY_SCHEDULE: '200ms' });
    const developer = await plaza.signIn('mongo@studio.test');
    const receiver = await WebhookReceiver.start((_, i) => (i === 0 ? { status: 500 } : { status: 200 }));
    const app = await submitApp(developer, { webhookUrl: receiver.url() });
    const delivery = await emitEvent(plaza, app.id);
    const done = await waitForDelivery(developer, delivery.id, isFinal);
    expect(done.status).toBe('SUCCEEDED');
    expect(done.attempts.map((a: any) => a.statusCode)).toEqual([500, 200]);
  });
});
