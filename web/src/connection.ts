import { useSyncExternalStore } from 'react';
import type { Locale } from './i18n/strings';
import { wordsOf } from './i18n/words';

/**
 * Whether Plaza can be reached from this page (without it, with the server gone a page said
 * "Failed to fetch", live updates stopped silently and never came back). Requests and the live socket
 * report here; while Plaza cannot be reached a probe asks /healthz until it answers, and then the pages
 * load again by themselves.
 */
export interface Connection {
  /** False from a request that could not reach Plaza (or the live socket dropping) until Plaza answers again. */
  reachable: boolean;
  /** The live socket dropped while it carried subscriptions: their updates resume when it reconnects. */
  livePaused: boolean;
  /** Bumped each time Plaza is reachable again after it was not, for the "back" news. */
  returns: number;
}

let state: Connection = { reachable: true, livePaused: false, returns: 0 };
const listeners = new Set<() => void>();
const whenBack = new Set<() => void>();

function set(next: Partial<Connection>): void {
  const merged = { ...state, ...next };
  if (merged.reachable === state.reachable && merged.livePaused === state.livePaused && merged.returns === state.returns) return;
  state = merged;
  listeners.forEach((listener) => listener());
}

export function useConnection(): Connection {
  return useSyncExternalStore(
    (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    () => state,
  );
}

/** Called once Plaza answers again after it could not be reached (the Apollo client refetches what is on screen). */
export function onReconnect(callback: () => void): () => void {
  whenBack.add(callback);
  return () => whenBack.delete(callback);
}

/** Plaza answered: a request (`live` false), or the live socket connected again (`live` true: its updates flow again). */
export function plazaReachable({ live = false }: { live?: boolean } = {}): void {
  const livePaused = state.livePaused && !live;
  if (state.reachable && livePaused === state.livePaused) return;
  set({ reachable: true, livePaused, returns: livePaused ? state.returns : state.returns + 1 });
  // Again on the socket's return: updates sent while it was away are in what the pages fetch.
  whenBack.forEach((callback) => callback());
}

export function plazaUnreachable({ live = false }: { live?: boolean } = {}): void {
  set({ reachable: false, livePaused: state.livePaused || live });
  probeSoon();
}

/** The first probe after 1 s, then up to every 5 s: quick to notice Plaza back, light on a server starting up. */
const PROBE_DELAYS_MS = [1000, 2000, 3000, 5000];
let probeTimer: ReturnType<typeof setTimeout> | null = null;
let probes = 0;

function probeSoon(): void {
  if (probeTimer) return;
  probeTimer = setTimeout(
    () => {
      probeTimer = null;
      probes++;
      // Any answer means Plaza is there (a 503 while its database restarts is told by the request itself).
      fetch('/healthz', { cache: 'no-store' }).then(
        () => {
          probes = 0;
          plazaReachable();
        },
        () => probeSoon(),
      );
    },
    PROBE_DELAYS_MS[Math.min(probes, PROBE_DELAYS_MS.length - 1)],
  );
}

if (typeof window !== 'undefined') {
  window.addEventListener('offline', () => plazaUnreachable());
  window.addEventListener('online', () => {
    if (!state.reachable) {
      if (probeTimer) clearTimeout(probeTimer);
      probeTimer = null;
      probes = 0;
      probeSoon();
    }
  });
}

/** The language transport errors are told in: the page's, set by the shell (errors are made outside React). */
let errorLocale: Locale = 'en';
export function setErrorLocale(locale: Locale): void {
  errorLocale = locale;
}

/**
 * A request that never reached Plaza (fetch's "Failed to fetch"). Its message is in the page's language
 * and says what a person can know: for a page, that it is retrying; for an action, that its result is
 * unknown, since the request may have arrived before the connection broke.
 */
export class PlazaUnreachableError extends Error {
  constructor(
    readonly action: boolean,
    cause: unknown,
  ) {
    super('', { cause });
    this.name = 'PlazaUnreachableError';
    // Read when shown, so a language chosen after the error still applies.
    Object.defineProperty(this, 'message', { get: () => (wordsOf(errorLocale) ?? wordsOf('en')!)[action ? 'connection.actionUnknown' : 'connection.lost'] });
  }
}

/** fetch rejects with a TypeError when no answer came (refused, reset, offline, DNS); an HTTP error status is an answer. */
export function isUnreachable(error: unknown): boolean {
  return error instanceof TypeError;
}
