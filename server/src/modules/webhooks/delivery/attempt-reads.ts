import type { DataSource } from 'typeorm';
import { DeliveryAttempt } from '../delivery-attempt.entity.js';
import { ATTEMPTS_OF_DELIVERIES, LAST_ATTEMPTS_OF_DELIVERIES } from './log-queries.js';

/** A row of ATTEMPTS_OF_DELIVERIES (its columns: ATTEMPT_COLUMNS). */
interface AttemptRow {
  delivery_id: string;
  number: number;
  trigger: string;
  started_at: Date;
  duration_ms: number | null;
  status_code: number | null;
  error: string | null;
  response_body_excerpt: string | null;
  url: string | null;
  finished: boolean;
  request_headers: Record<string, string> | null;
}

/** The attempts of these deliveries, oldest first per delivery, with the request headers as sent (shared and own composed). */
export async function readAttempts(db: DataSource, deliveryIds: string[]): Promise<DeliveryAttempt[]> {
  const rows: AttemptRow[] = await db.query(ATTEMPTS_OF_DELIVERIES, [deliveryIds]);
  return rows.map((row) => toAttempt(row));
}

/** The latest attempt of each of these deliveries that has one. */
export async function readLastAttempts(db: DataSource, deliveryIds: string[]): Promise<DeliveryAttempt[]> {
  const rows: AttemptRow[] = await db.query(LAST_ATTEMPTS_OF_DELIVERIES, [deliveryIds]);
  return rows.map((row) => toAttempt(row));
}

/** An attempt from a row holding ATTEMPT_COLUMNS, each named `prefix` + its name (DELIVERY_WITH_ATTEMPTS: `attempt_`). */
export function toAttempt(row: object, prefix = ''): DeliveryAttempt {
  const column = <K extends keyof AttemptRow>(name: K) => (row as Record<string, unknown>)[`${prefix}${name}`] as AttemptRow[K];
  return Object.assign(new DeliveryAttempt(), {
    deliveryId: column('delivery_id'),
    number: column('number'),
    trigger: column('trigger'),
    startedAt: column('started_at'),
    durationMsOrNull: column('duration_ms'),
    statusCode: column('status_code'),
    error: column('error'),
    responseBodyExcerpt: column('response_body_excerpt'),
    url: column('url'),
    finished: column('finished'),
    requestHeaders: column('request_headers'),
  });
}
