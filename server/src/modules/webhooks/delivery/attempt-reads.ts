import type { DataSource } from 'typeorm';
import { DeliveryAttempt } from '../delivery-attempt.entity.js';
import { ATTEMPTS_OF_DELIVERIES } from './delivery-queries.js';

/** A row of ATTEMPTS_OF_DELIVERIES. */
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
  return rows.map((row) =>
    Object.assign(new DeliveryAttempt(), {
      deliveryId: row.delivery_id,
      number: row.number,
      trigger: row.trigger,
      startedAt: row.started_at,
      durationMsOrNull: row.duration_ms,
      statusCode: row.status_code,
      error: row.error,
      responseBodyExcerpt: row.response_body_excerpt,
      url: row.url,
      finished: row.finished,
      requestHeaders: row.request_headers,
    }),
  );
}
