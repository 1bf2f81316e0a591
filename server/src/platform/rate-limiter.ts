import { ErrorCode, PlazaError } from './errors.js';

interface Bucket {
  tokens: number;
  updatedAt: number;
}

/**
 * Token buckets by key (an address, an API token id, an account): each holds up to `perMinute` requests and
 * refills continuously at `perMinute` a minute, so a client may burst a minute's worth and then keeps
 * the average. Per process: N API processes behind a load balancer allow up to N times the figure.
 */
export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly perMinute: number) {
    // A bucket idle for a minute is full again, the same as no bucket: forget it, so memory follows active clients only.
    this.sweeper = setInterval(() => this.sweep(), 60_000);
    this.sweeper.unref();
  }

  /** Takes one request from `key`'s bucket; returns the seconds to wait when it is empty, else 0. */
  take(key: string, now = Date.now()): number {
    const bucket = this.refilled(key, now);
    if (bucket.tokens < 1) return this.secondsUntilOne(bucket);
    bucket.tokens -= 1;
    return 0;
  }

  /** The seconds until `key` may make a request (0 = now), without taking one. */
  waitFor(key: string, now = Date.now()): number {
    const bucket = this.refilled(key, now);
    return bucket.tokens < 1 ? this.secondsUntilOne(bucket) : 0;
  }

  /** Like take(), but throws RATE_LIMITED (HTTP 429) naming `who` when the bucket is empty. */
  consume(key: string, who: string, now = Date.now()): void {
    const retryAfterSeconds = this.take(key, now);
    if (retryAfterSeconds > 0) throw rateLimited(who, retryAfterSeconds);
  }

  /** `key`'s bucket brought up to `now`: one map lookup, and an allocation only for a key not seen in the last minute. */
  private refilled(key: string, now: number): Bucket {
    let bucket = this.buckets.get(key);
    if (bucket === undefined) {
      bucket = { tokens: this.perMinute, updatedAt: now };
      this.buckets.set(key, bucket);
      return bucket;
    }
    bucket.tokens = Math.min(this.perMinute, bucket.tokens + ((now - bucket.updatedAt) * this.perMinute) / 60_000);
    bucket.updatedAt = now;
    return bucket;
  }

  private secondsUntilOne(bucket: Bucket): number {
    return Math.ceil(((1 - bucket.tokens) * 60_000) / this.perMinute / 1000);
  }

  get trackedKeys(): number {
    return this.buckets.size;
  }

  private sweep(now = Date.now()): void {
    for (const [key, bucket] of this.buckets) if (now - bucket.updatedAt >= 60_000) this.buckets.delete(key);
  }

  close(): void {
    clearInterval(this.sweeper);
  }
}

export function rateLimited(who: string, retryAfterSeconds: number): PlazaError {
  const error = new PlazaError(ErrorCode.RATE_LIMITED, `Too many requests from this ${who}; try again in ${retryAfterSeconds} s`);
  error.extensions.retryAfterSeconds = retryAfterSeconds;
  return error;
}
