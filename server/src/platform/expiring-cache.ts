import { LRUCache } from 'lru-cache';

export interface ExpiringCacheOptions<V> {
  /** How long an entry is kept, in ms (changeable later through `ttlMs`; applies to entries put after). */
  ttlMs: number;
  /** Entries kept at most; past it the least recently used go first. */
  maxEntries: number;
  /** With `bytesOf`: bytes kept at most, and bytes of one entry at most (a bigger one is not kept). */
  maxBytes?: number;
  maxEntryBytes?: number;
  bytesOf?: (value: V, key: string) => number;
}

/**
 * Answers kept for a short time and dropped at once when what they were computed from changes: the store's
 * pages and its whole signed-out answers are both this (modules/apps). `generation` is read before the work
 * that computes a value and handed to `put`, so a value computed across an `invalidate` (it may predate the
 * change) is not kept. Bounded in entries and, where `bytesOf` is given, in bytes (lru-cache).
 */
export class ExpiringCache<V extends NonNullable<unknown>> {
  /** Off, nothing is read or kept (benchmark 5 reports both figures). */
  enabled = true;
  ttlMs: number;
  private readonly entries: LRUCache<string, V>;
  private readonly maxEntryBytes: number;
  private readonly bytesOf: ((value: V, key: string) => number) | undefined;
  /** Bumped by invalidate: a value computed before a change must not be stored after it. */
  private generationValue = 0;

  constructor(options: ExpiringCacheOptions<V>) {
    this.ttlMs = options.ttlMs;
    this.bytesOf = options.bytesOf;
    this.maxEntryBytes = options.maxEntryBytes ?? Infinity;
    this.entries = new LRUCache<string, V>({
      max: options.maxEntries,
      ttl: options.ttlMs,
      ...(options.bytesOf && options.maxBytes ? { maxSize: options.maxBytes, sizeCalculation: (value: V, key: string) => Math.max(1, options.bytesOf!(value, key)) } : {}),
    });
  }

  get generation(): number {
    return this.generationValue;
  }

  get size(): number {
    return this.entries.size;
  }

  /** The value kept for `key`, or undefined (never kept, expired, dropped, or the cache is off). */
  get(key: string): V | undefined {
    return this.enabled ? this.entries.get(key) : undefined;
  }

  /** Keeps `value` unless the cache changed since `generation` (read when the work began) or it is too big. */
  put(key: string, value: V, generation: number): boolean {
    if (!this.enabled || generation !== this.generationValue) return false;
    if (this.bytesOf && this.bytesOf(value, key) > this.maxEntryBytes) return false;
    this.entries.set(key, value, { ttl: this.ttlMs });
    return true;
  }

  /** What the values were computed from changed (and has committed): every kept value may be wrong now. */
  invalidate(): void {
    this.generationValue += 1;
    this.entries.clear();
  }
}
