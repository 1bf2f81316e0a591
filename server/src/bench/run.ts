/**
 * `pnpm bench`: runs the benchmarks on this machine and writes BENCHMARKS.md at the repository root.
 * `--size tiny` runs each on a tiny size and only prints (CI uses it so the benchmarks cannot rot).
 */
import 'reflect-metadata';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../config.js';
import { machine } from './harness.js';
import { throughputBenchmark } from './throughput.bench.js';

const tiny = process.argv.includes('--size') && process.argv[process.argv.indexOf('--size') + 1] === 'tiny';
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

const events = Number(process.env.BENCH_EVENTS ?? (tiny ? 200 : 20_000));
const throughput = await throughputBenchmark(events);
const report = `# Plaza benchmarks

Machine: ${machine()}. Command: \`pnpm bench\`. Date: ${new Date().toISOString().slice(0, 10)}.
PostgreSQL: embedded, fsync on. Receiver: a worker thread on loopback that verifies every signature.
Every figure is compared with a baseline run in the same process, minutes apart at most.

## 1. Delivery throughput (${fmt(throughput.events)} events, one transaction each through \`recordEvent\`)

| Run | Deliveries/s | vs. bare loop |
|---|---|---|
| (a) bare loop: sign + POST with an undici pool (50 connections), nothing stored | ${fmt(throughput.bareLoopPerSecond)} | 1.00x |
| Plaza engine: first commit to last verified receipt | ${fmt(throughput.plazaPerSecond)} | ${(throughput.plazaPerSecond / throughput.bareLoopPerSecond).toFixed(2)}x |

PostgreSQL commits per delivery (business commit included): ${throughput.commitsPerDelivery.toFixed(2)}.

Not measured yet (issue 6 is open): (b) one Agenda job per delivery, (c) pg-boss, latency, retry
fidelity, log queries at 100k/1M rows, API throughput, subscriptions, footprint. Targets for this
benchmark: at least 5,000 deliveries/s and 0.25x the bare loop.
`;
if (tiny) {
  console.log(report);
} else {
  writeFileSync(path.join(REPO_ROOT, 'BENCHMARKS.md'), report);
  console.log(`wrote BENCHMARKS.md\n\n${report}`);
}
process.exit(0);
