import type { Connection, PageArgs } from '../../platform/connection.js';
import { ExpiringCache } from '../../platform/expiring-cache.js';
import type { App } from './app.entity.js';

/**
 * How long a store page is served from memory. A listing changes only when a review approves an app:
 * this process drops its pages when that commits, and another API process (README, Scaling out) shows
 * it within this time.
 */
export const STORE_PAGE_TTL_MS = 1_000;
/** Pages kept at most (browse pages by category and cursor); past it the least recently read go. */
const MAX_PAGES = 500;

export type StorePageArgs = { category?: string | null; search?: string | null } & PageArgs;

/**
 * The store's pages as anyone sees them (the public listing: the same for every reader), kept for
 * STORE_PAGE_TTL_MS. The store page is the busiest public read, and its statement cost more than
 * everything else about the request (benchmark 5, measured with an approval a second beside it).
 * Searches are not kept: their text is the caller's, so they would fill the cache with one-offs.
 */
export class StorePageCache {
  private readonly pages = new ExpiringCache<Connection<App>>({ ttlMs: STORE_PAGE_TTL_MS, maxEntries: MAX_PAGES });
  /** Reads under way, by the listings' generation and the page: at most one per page and generation. */
  private readonly reading = new Map<string, Promise<Connection<App>>>();

  /** Off, every page is read from the database (benchmark 5 reports both figures). */
  get enabled(): boolean {
    return this.pages.enabled;
  }
  set enabled(on: boolean) {
    this.pages.enabled = on;
  }

  /** The cached page for these arguments, or undefined (not kept, expired, or not to be kept). */
  get(args: StorePageArgs): Connection<App> | undefined {
    const key = keyOf(args);
    return key === undefined ? undefined : this.pages.get(key);
  }

  /**
   * Reads a page with `read` and keeps it, unless listings changed while it was being read. Requests for a page
   * being read wait for that read rather than making their own: when a kept page expires, every request in the
   * next moment would otherwise read it (under load, dozens of the same statement at once). A read started before
   * a listing changed is not shared with requests that come after the change.
   */
  through(args: StorePageArgs, read: () => Promise<Connection<App>>): Promise<Connection<App>> {
    const key = keyOf(args);
    const generation = this.pages.generation;
    if (key === undefined || !this.pages.enabled) return read();
    const readingKey = `${generation}\u0001${key}`;
    const shared = this.reading.get(readingKey);
    if (shared) return shared;
    const reading = read()
      .then((page) => {
        this.pages.put(key, page, generation);
        return page;
      })
      .finally(() => this.reading.delete(readingKey));
    this.reading.set(readingKey, reading);
    return reading;
  }

  /** A listing changed and has committed: every page may be wrong now. */
  invalidate(): void {
    this.pages.invalidate();
  }
}

/** The page's identity; undefined for a search, which is not kept. */
function keyOf(args: StorePageArgs): string | undefined {
  if (args.search) return undefined;
  return `${args.category ?? ''}\u0000${args.first ?? ''}\u0000${args.after ?? ''}\u0000${args.last ?? ''}\u0000${args.before ?? ''}`;
}
