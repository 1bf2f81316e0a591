import type { WebhookEvent } from '../types.js';

/**
 * Remembers which events were processed, so a redelivered event is not processed twice. Back it with
 * your database (a unique key plus `INSERT ... ON CONFLICT DO NOTHING`) to survive restarts and to
 * share it between processes.
 */
export interface DedupeStore {
  /** Records `key`; resolves `false` when it was already recorded. Must be atomic: deliveries can race. */
  claim(key: string): boolean | Promise<boolean>;
  /** Forgets `key` after processing failed, so a later delivery of the same event is processed. */
  release(key: string): void | Promise<void>;
}

/**
 * The key deliveries are deduplicated on. Not the delivery id: a refund shares its purchase's
 * purchase_id, so (event, purchase_id) is what identifies one thing that happened.
 */
export function dedupeKey(event: Pick<WebhookEvent, 'event' | 'purchase_id'>): string {
  return `${event.event}:${event.purchase_id}`;
}

/**
 * In-process store: forgets everything on restart and is not shared between processes. Bounded, so a
 * long-running receiver does not grow without limit; the oldest keys go first.
 */
export class MemoryDedupeStore implements DedupeStore {
  private readonly keys = new Set<string>();

  constructor(private readonly maxKeys = 10_000) {
    if (!Number.isInteger(maxKeys) || maxKeys < 1) throw new RangeError('maxKeys must be a positive integer');
  }

  claim(key: string): boolean {
    if (this.keys.has(key)) return false;
    this.keys.add(key);
    if (this.keys.size > this.maxKeys) {
      const oldest = this.keys.values().next().value;
      if (oldest !== undefined) this.keys.delete(oldest);
    }
    return true;
  }

  release(key: string): void {
    this.keys.delete(key);
  }
}
