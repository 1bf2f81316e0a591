import { diskFullRecently } from './database-unavailable.js';

/** A check answers by resolving; a rejection or a check slower than this means the part is down. */
const CHECK_TIMEOUT_MS = 3000;

export type PartState = 'ok' | 'unreachable' | 'disk full';

/**
 * What /readyz asks: each part this process depends on (the database; the job store while a job
 * worker runs here). Parts register themselves when they start, so a process without a worker
 * (RUN_WORKER=false) is ready on its database alone.
 */
export class Readiness {
  private readonly checks = new Map<string, () => Promise<unknown>>();

  add(part: string, check: () => Promise<unknown>): void {
    this.checks.set(part, check);
  }

  async check(): Promise<{ ready: boolean; parts: Record<string, PartState> }> {
    const entries = await Promise.all(
      [...this.checks].map(async ([part, check]): Promise<[string, PartState]> => {
        const state = await probe(check);
        // A full disk still answers SELECT 1: a write it refused for want of space in the last seconds says so instead.
        return [part, part === 'database' && state === 'ok' && diskFullRecently() ? 'disk full' : state];
      }),
    );
    return { ready: entries.every(([, state]) => state === 'ok'), parts: Object.fromEntries(entries) };
  }

  /** /readyz's answer, the same on the API's port and a worker's operations port. */
  async answer(): Promise<{ httpStatus: number; body: Record<string, string> }> {
    const { ready, parts } = await this.check();
    return { httpStatus: ready ? 200 : 503, body: { status: ready ? 'ready' : 'not ready', ...parts } };
  }
}

/** Bounded: a pool waiting out its connection timeout must not hold the load balancer's probe. */
async function probe(check: () => Promise<unknown>): Promise<PartState> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<PartState>((resolve) => (timer = setTimeout(() => resolve('unreachable'), CHECK_TIMEOUT_MS)));
  try {
    return await Promise.race([
      check().then(
        (): PartState => 'ok',
        (): PartState => 'unreachable',
      ),
      timedOut,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
