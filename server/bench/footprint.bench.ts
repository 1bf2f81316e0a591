import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { findFreePort, readEmbeddedDatabaseUrl } from '../platform/embedded-postgres.js';
import type { RunningPlaza } from '../app/plaza.js';
import { benchKey, commitEvents, createApps, median, startBenchPlaza, startReceiver, waitForVerified, type Receiver } from './harness.js';
import { descendantPids, peakResidentMiB, proportionalMiB, residentMiB, startServerProcess, type ServerProcess } from './server-process.js';
import { fmt } from './report-format.js';

export interface FootprintResult {
  /** Spawn to /readyz 200 on an empty data directory: initdb, migrations, everything. */
  firstStartSeconds: number;
  restartSeconds: number[];
  /** The median of restartSeconds: spawn to /readyz 200 with the data directory of an earlier run. */
  restartMedianSeconds: number;
  /** VmRSS of the server's Node process, idle after ready. */
  idleServerMiB: number;
  /** Summed PSS of the embedded PostgreSQL's processes, idle; and how many there were. */
  idlePostgresMiB: number;
  idlePostgresProcesses: number;
  events: number;
  deliveriesPerSecond: number;
  /** Highest of the 100 ms samples under load, and the kernel's high-water mark (VmHWM) at the end. */
  peakServerMiB: number;
  serverHighWaterMiB: number;
  peakPostgresMiB: number;
  samples: number;
}

const APPS = 10;
const SAMPLE_EVERY_MS = 100;
const IDLE_SETTLE_MS = 3000;

/**
 * Benchmark 7: how long `node server/dist/main.js` takes to answer /readyz with its embedded
 * PostgreSQL (first start with initdb, then restarts on the same data), and how much memory the
 * server and its PostgreSQL hold idle and at peak while delivering `events` events.
 */
export async function footprintBenchmark(size: 'tiny' | 'full'): Promise<FootprintResult> {
  const restarts = size === 'tiny' ? 2 : 5;
  const events = size === 'tiny' ? 200 : 20_000;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'plaza-footprint-'));
  // Embedded PostgreSQL runs as the postgres user, which must be able to walk into the data directory.
  chmodSync(dataDir, 0o755);
  const env = { DATA_DIR: dataDir, PORT: String(await findFreePort()), SECRET_ENCRYPTION_KEY: benchKey, WEBHOOK_ALLOW_PRIVATE_URLS: 'true', WEBHOOK_RETRY_SCHEDULE: '1s' };
  try {
    const firstStartSeconds = (await startAndStop(env)) / 1000;
    const restartSeconds: number[] = [];
    for (let i = 0; i < restarts; i++) restartSeconds.push((await startAndStop(env)) / 1000);

    const server = await startServerProcess(env);
    try {
      await new Promise((r) => setTimeout(r, IDLE_SETTLE_MS));
      const postgresPids = descendantPids(server.pid);
      const idle = { server: residentMiB(server.pid), postgres: proportionalMiB(postgresPids), processes: postgresPids.length };
      const load = await deliverUnderSampling(server, dataDir, events);
      return {
        firstStartSeconds,
        restartSeconds,
        restartMedianSeconds: median(restartSeconds),
        idleServerMiB: idle.server,
        idlePostgresMiB: idle.postgres,
        idlePostgresProcesses: idle.processes,
        events,
        ...load,
      };
    } finally {
      await server.stop();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Returns ms from spawn to ready; the server is stopped (SIGTERM, exit awaited) before the next start. */
async function startAndStop(env: Record<string, string>): Promise<number> {
  const server = await startServerProcess(env);
  const code = await server.stop();
  if (code !== 0) throw new Error(`the server exited with ${code} on SIGTERM:\n${server.output()}`);
  return server.readyAfterMs;
}

/**
 * Benchmark 1's load on the running server: this process commits `events` events through
 * `recordEvent` on the server's own database (it runs no worker), the server's worker delivers them
 * to a verifying receiver; the server and its PostgreSQL are sampled every 100 ms meanwhile.
 */
async function deliverUnderSampling(server: ServerProcess, dataDir: string, events: number) {
  const databaseUrl = readEmbeddedDatabaseUrl(dataDir);
  if (!databaseUrl) throw new Error(`no running embedded PostgreSQL recorded in ${dataDir}`);
  let producer: RunningPlaza | undefined;
  let receiver: Receiver | undefined;
  let sampler: NodeJS.Timeout | undefined;
  try {
    producer = await startBenchPlaza(databaseUrl, { RUN_WORKER: 'false' });
    const receiverPort = await findFreePort();
    const { appIds, secretsByAppId } = await createApps(producer, APPS, `http://127.0.0.1:${receiverPort}/bench/webhook`);
    receiver = await startReceiver(secretsByAppId, { port: receiverPort });

    const peak = { server: 0, postgres: 0, samples: 0 };
    const sample = () => {
      peak.server = Math.max(peak.server, residentMiB(server.pid));
      peak.postgres = Math.max(peak.postgres, proportionalMiB(descendantPids(server.pid)));
      peak.samples += 1;
    };
    sample();
    sampler = setInterval(sample, SAMPLE_EVERY_MS);
    const started = performance.now();
    await commitEvents(producer, appIds, events);
    const finished = await waitForVerified(receiver, events, 600_000);
    clearInterval(sampler);
    sample();
    return {
      deliveriesPerSecond: events / ((finished - started) / 1000),
      peakServerMiB: peak.server,
      serverHighWaterMiB: peakResidentMiB(server.pid),
      peakPostgresMiB: peak.postgres,
      samples: peak.samples,
    };
  } finally {
    clearInterval(sampler);
    await receiver?.close();
    await producer?.stop();
  }
}

const seconds = (s: number) => `${s.toFixed(2)} s`;
const mib = (m: number) => `${m.toFixed(0)} MiB`;

export function footprintReport(r: FootprintResult): string {
  return `## 7. Footprint (\`node server/dist/main.js\` with its embedded PostgreSQL, fsync on)

| Figure | Now |
|---|---|
| Start to /readyz 200, first start (initdb and migrations included) | ${seconds(r.firstStartSeconds)} |
| **Start to /readyz 200, restart on existing data (median of ${r.restartSeconds.length})** | **${seconds(r.restartMedianSeconds)}** (${r.restartSeconds.map((s) => s.toFixed(2)).join(', ')}) |
| Server process resident memory (VmRSS), idle after ready | ${mib(r.idleServerMiB)} |
| Embedded PostgreSQL, idle (PSS summed over its ${r.idlePostgresProcesses} processes) | ${mib(r.idlePostgresMiB)} |
| Server process VmRSS, peak of ${fmt(r.samples)} samples (every ${SAMPLE_EVERY_MS} ms) while delivering ${fmt(r.events)} events | ${mib(r.peakServerMiB)} (kernel high-water mark: ${mib(r.serverHighWaterMiB)}) |
| Embedded PostgreSQL, peak PSS under that load (the producer's 20 connections included) | ${mib(r.peakPostgresMiB)} |
| Deliveries/s during that load (benchmark 1's setup, worker in the server process) | ${fmt(r.deliveriesPerSecond)} |

Start time is measured from spawning \`node\` to the first 200 from /readyz (polled every 20 ms);
\`pnpm start\` runs \`pnpm build\` first, which this figure leaves out (\`pnpm serve\` starts without it).
Each start is stopped with SIGTERM and its exit awaited before the next. No target is set for these
figures; they are what a small installation should plan for.

What bounds it now: a restart is mostly Node loading the server's modules (Apollo Server, type-graphql,
TypeORM, Agenda, pg: about 1 s when imported alone on this machine); PostgreSQL's own start, the
schema build and the worker's start take the last few hundred ms. The first start adds initdb (2-3 s).
Idle memory is those modules' code and heap; under load the server grows with the deliveries in flight
and their buffered results, and PostgreSQL with its backends (the server's pools and this benchmark's).
`;
}
