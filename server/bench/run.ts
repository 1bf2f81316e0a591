/**
 * `pnpm bench`: runs every benchmark on this machine and writes BENCHMARKS.md at the repository root.
 * `--size tiny` runs each on a tiny size and only prints (CI uses it so the benchmarks cannot rot).
 * `--only 4,5` runs just those sections and only prints (for working on one figure).
 */
import './production-mode.js';
import 'reflect-metadata';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../config.js';
import { machine } from './harness.js';
import type { BenchSize } from './report-format.js';
import { throughputBenchmark, throughputReport } from './throughput.bench.js';
import { agendaPerDeliveryBenchmark, pgBossBenchmark } from './baselines.bench.js';
import { latencyBenchmark, latencyReport } from './latency.bench.js';
import { retryFidelityBenchmark, retryFidelityReport } from './retry-fidelity.bench.js';
import { engineStorageBenchmark, engineStorageReport } from './engine-storage.bench.js';
import { bytesPerDelivery, logQueriesBenchmark, logQueriesReport } from './log-queries.bench.js';
import { apiThroughputBenchmark, apiThroughputReport } from './api-throughput.bench.js';
import { subscriptionsBenchmark, subscriptionsReport } from './subscriptions.bench.js';
import { footprintBenchmark, footprintReport } from './footprint.bench.js';
import { chartsBenchmark, chartsReport } from './charts.bench.js';
import { cliStartupBenchmark, cliStartupReport } from './cli-startup.bench.js';
import { soakBenchmark, soakReport } from './soak.bench.js';

const USAGE = `Usage: pnpm bench [--size tiny|full] [--only N[,N...]]
  (no option)  every benchmark at full size (about 15 minutes); BENCHMARKS.md is rewritten with the report, and its
               hand-written sections (A/B runs, upgrades) are then left to git's history
  --size tiny  every benchmark on a tiny size; prints the report only
  --only 4,5   those sections (1-10) only; prints the report only`;

function fail(why: string): never {
  console.error(`${why}\n${USAGE}`);
  process.exit(2);
}

/**
 * The options, checked: anything else stops here with the usage, since a full run (what no option means) takes a
 * quarter of an hour and rewrites BENCHMARKS.md (a mistyped or unknown option, `--help` among them, used to start one).
 */
function parseArguments(args: readonly string[]): { size: BenchSize; only: number[] | undefined } {
  let size: BenchSize = 'full';
  let only: number[] | undefined;
  for (let i = 0; i < args.length; i++) {
    const value = args[i + 1];
    if (args[i] === '--help' || args[i] === '-h') {
      console.log(USAGE);
      process.exit(0);
    } else if (args[i] === '--size') {
      if (value !== 'tiny' && value !== 'full') fail(`--size takes tiny or full, not ${value ?? 'nothing'}`);
      size = value as BenchSize;
      i++;
    } else if (args[i] === '--only') {
      const numbers = (value ?? '').split(',').map(Number);
      if (!value || numbers.some((n) => !Number.isInteger(n))) fail(`--only takes section numbers separated by commas, not ${value ?? 'nothing'}`);
      only = numbers;
      i++;
    } else {
      fail(`unknown option ${args[i]}`);
    }
  }
  return { size, only };
}

const { size, only } = parseArguments(process.argv.slice(2));
const tiny = size === 'tiny';
const events = Number(process.env.BENCH_EVENTS ?? (tiny ? 200 : 20_000));
const latencySeconds = tiny ? 2 : 60;

/** Each section runs on its own database and cleans up after itself, so they run one after another. */
const sections: Record<number, () => Promise<string>> = {
  1: async () => {
    const throughput = await throughputBenchmark(events);
    const perTransaction = throughput.batched.eventsPerTransaction;
    return throughputReport(throughput, await agendaPerDeliveryBenchmark(events, perTransaction), await pgBossBenchmark(events, perTransaction));
  },
  2: async () =>
    latencyReport([
      { result: await latencyBenchmark(tiny ? 50 : 200, latencySeconds), p99TargetMs: 50 },
      { result: await latencyBenchmark(tiny ? 100 : 1000, latencySeconds), p99TargetMs: 250 },
    ]),
  3: async () => retryFidelityReport(await retryFidelityBenchmark(tiny ? 50 : 1000)),
  4: async () => {
    const log = await logQueriesBenchmark(size);
    const seeded = { deliveries: log.large.deliveries, bytesPerDelivery: bytesPerDelivery(log.large) };
    return `${logQueriesReport(log)}\n${engineStorageReport(await engineStorageBenchmark(size), seeded)}`;
  },
  5: async () => apiThroughputReport(await apiThroughputBenchmark(size)),
  6: async () => {
    // A tail latency on a shared two-core machine moves between runs: the median of three runs is reported.
    const runs: Awaited<ReturnType<typeof subscriptionsBenchmark>>[] = [];
    for (let i = 0; i < (tiny ? 1 : 3); i++) runs.push(await subscriptionsBenchmark(size));
    const median = [...runs].sort((a, b) => a.p99Ms - b.p99Ms)[Math.floor(runs.length / 2)];
    if (!median) throw new Error('the subscriptions benchmark made no run');
    const note = runs.length > 1 ? `\nRuns: ${runs.length}, p99 ${runs.map((r) => `${r.p99Ms} ms`).join(', ')}; the table shows the median run.\n` : '';
    return subscriptionsReport(median) + note;
  },
  7: async () => footprintReport(await footprintBenchmark(size)),
  8: async () => chartsReport(await chartsBenchmark(size)),
  9: async () => cliStartupReport(await cliStartupBenchmark(size)),
  // SOAK_MINUTES (default 30) at SOAK_DELIVERIES_PER_SECOND (default 200): the longest section by far.
  10: async () => soakReport(await soakBenchmark(size)),
};

const unknownSections = (only ?? []).filter((n) => !(n in sections));
if (unknownSections.length) fail(`no section ${unknownSections.join(', ')}: the sections are ${Object.keys(sections).join(', ')}`);

const reports: string[] = [];
for (const [number, run] of Object.entries(sections)) {
  if (only && !only.includes(Number(number))) continue;
  const started = Date.now();
  reports.push(await run());
  console.error(`benchmark ${number} done in ${Math.round((Date.now() - started) / 1000)} s`);
}

const report = `# Plaza benchmarks

Machine: ${machine()}. Command: \`pnpm bench\`. Date: ${new Date().toISOString().slice(0, 10)}.
PostgreSQL: embedded, fsync on. Receiver: a worker thread on loopback that verifies every signature.
Every figure is compared with a baseline run in the same process, minutes apart at most, or stated
with its median over several runs: these machines are noisy.

${reports.join('\n')}`;
if (tiny || only) {
  console.log(report);
} else {
  writeFileSync(path.join(REPO_ROOT, 'BENCHMARKS.md'), report);
  console.log(`wrote BENCHMARKS.md\n\n${report}`);
}
process.exit(0);
