import type { DataSource } from 'typeorm';
import type { EncryptionKey } from '../config.js';
import { openSecret } from '../platform/secret-crypto.js';
import type { GuardedHttpClient } from '../platform/outbound-http/guarded-http-client.js';
import { webhookHeaders } from '../modules/webhooks/webhook-signing.js';

/**
 * The straightforward design the baselines run: one job per delivery that loads it, signs, sends,
 * and records the attempt and the status with a write each. Same tables, signer and HTTP client as
 * the engine, so the comparison measures the design, not the parts.
 */
export async function deliverOnce(db: DataSource, http: GuardedHttpClient, keys: EncryptionKey[], deliveryId: string): Promise<void> {
  const [delivery] = await db.query(
    `SELECT d.id, d.app_id, d.event_type, d.attempt_count, e.payload, a.webhook_url, s.key_id, s.ciphertext
       FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id JOIN apps a ON a.id = d.app_id JOIN client_secrets s ON s.app_id = d.app_id
      WHERE d.id = $1`,
    [deliveryId],
  );
  const number = delivery.attempt_count + 1;
  const secret = openSecret({ keyId: delivery.key_id, ciphertext: delivery.ciphertext }, delivery.app_id, keys);
  const startedAt = new Date();
  const headers = webhookHeaders({ deliveryId, eventName: delivery.event_type, attemptNumber: number, body: delivery.payload, clientSecret: secret, now: startedAt });
  const response = await http.post(delivery.webhook_url, headers, delivery.payload);
  await db.query(
    `INSERT INTO webhook_attempts (delivery_id, number, trigger, started_at, duration_ms, status_code, error, response_body_excerpt, url, request_headers, finished)
     VALUES ($1, $2, 'SCHEDULED', $3, $4, $5, $6, $7, $8, $9, true)`,
    [deliveryId, number, startedAt, response.durationMs, response.statusCode, response.error, response.responseBodyExcerpt, delivery.webhook_url, headers],
  );
  await db.query(`UPDATE webhook_deliveries SET status = $2, attempt_count = $3, scheduled_attempts_done = $3, next_attempt_at = NULL, updated_at = now() WHERE id = $1`, [
    deliveryId,
    response.error ? 'FAILED' : 'SUCCEEDED',
    number,
  ]);
}
