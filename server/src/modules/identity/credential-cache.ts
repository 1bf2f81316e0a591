import { LRUCache } from 'lru-cache';

/**
 * How long a verified credential is trusted without reading it again. Changes are heard at once (the database
 * notifies every API process when one commits, and the process that made it forgets at once); this is only the
 * bound should a notification be lost without the connection being seen to drop (a peer that vanished, until
 * TCP keepalive notices): a revoked token or ended session is then refused at most this long after.
 */
export const CREDENTIAL_CACHE_TTL_MS = 10_000;
/** Verified credentials kept at most (a few hundred bytes each); past it the least recently used go first. */
export const CREDENTIAL_CACHE_MAX = 10_000;

/** Where changes of credentials are heard: PostgresPubSub, in the server. */
export interface CredentialNotices {
  /** False while changes could go unheard: then nothing is read from the cache or kept in it. */
  readonly listening: boolean;
  /** An account's id, '*' for every account, null when changes may have been missed. */
  onCredentialsChanged(listener: (userId: string | null) => void): () => void;
}

/**
 * Verified sessions and API tokens of this process, keyed by the token's SHA-256 (the token itself is never kept),
 * so that a signed-in request spends no database round trip on who is asking. An entry is forgotten when its
 * account's credentials change on any process (CredentialNotices), after CREDENTIAL_CACHE_TTL_MS at the latest,
 * and the whole cache while changes cannot be heard. A value read from the database across a change (it may
 * predate it) is not kept: `generation` is read before the read and handed to `put`.
 */
export class CredentialCache<V extends { userId: string }> {
  private readonly entries: LRUCache<string, V>;
  /** The keys of each account's entries, so a change of one account forgets only its own. */
  private readonly keysOf = new Map<string, Set<string>>();
  private generationValue = 0;
  private readonly stopListening: () => void;

  constructor(
    private readonly notices: CredentialNotices,
    { ttlMs = CREDENTIAL_CACHE_TTL_MS, max = CREDENTIAL_CACHE_MAX }: { ttlMs?: number; max?: number } = {},
  ) {
    this.entries = new LRUCache<string, V>({
      max,
      ttl: Math.max(1, ttlMs),
      // Evicted, expired, replaced or deleted: out of its account's keys too.
      dispose: (value, key) => {
        const keys = this.keysOf.get(value.userId);
        keys?.delete(key);
        if (keys?.size === 0) this.keysOf.delete(value.userId);
      },
    });
    this.stopListening = notices.onCredentialsChanged((userId) => (userId === null || userId === '*' ? this.clear() : this.forgetAccount(userId)));
  }

  get generation(): number {
    return this.generationValue;
  }

  get size(): number {
    return this.entries.size;
  }

  get(key: string): V | undefined {
    if (!this.notices.listening) {
      // Changes made from now on go unheard, so nothing kept so far may be trusted when listening resumes.
      if (this.entries.size) this.clear();
      return undefined;
    }
    return this.entries.get(key);
  }

  /** Keeps `value` unless credentials changed since `generation` (read before the database was) or nothing listens. */
  put(key: string, value: V, generation: number): void {
    if (generation !== this.generationValue || !this.notices.listening) return;
    this.entries.set(key, value);
    const keys = this.keysOf.get(value.userId) ?? new Set<string>();
    keys.add(key);
    this.keysOf.set(value.userId, keys);
  }

  /** The account's sessions, tokens, roles or apps changed (and the change has committed). */
  forgetAccount(userId: string): void {
    this.generationValue += 1;
    for (const key of [...(this.keysOf.get(userId) ?? [])]) this.entries.delete(key);
  }

  clear(): void {
    this.generationValue += 1;
    this.entries.clear();
    this.keysOf.clear();
  }

  close(): void {
    this.stopListening();
    this.clear();
  }
}
