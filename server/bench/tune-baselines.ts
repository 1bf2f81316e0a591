/**
 * `node server/dist/bench/tune-baselines.js [--events 5000] [--only agenda|pg-boss]`: runs baselines (b)
 * and (c) of section 1 with each of the settings their documentation offers for throughput, and prints
 * the rates, so the best can be kept in baselines.bench.ts (AGENDA_BEST, PG_BOSS_BEST) and named in
 * BENCHMARKS.md. The machine is shared: compare settings within one run of this script.
 */
import './production-mode.js';
import 'reflect-metadata';
import { BATCHED_EVENTS_PER_TRANSACTION } from './harness.js';
import {
  agendaPerDeliveryBenchmark,
  agendaSettingsText,
  pgBossBenchmark,
  pgBossSettingsText,
  type AgendaSettings,
  type BaselineRun,
  type PgBossSettings,
} from './baselines.bench.js';
import { fmt } from './report-format.js';

const argument = (name: string) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined);
const events = Number(argument('--events') ?? 5_000);
const only = argument('--only');

const PG_BOSS_TRIED: PgBossSettings[] = [
  { batchSize: 50, localConcurrency: 1 },
  { batchSize: 50, localConcurrency: 2 },
  { batchSize: 100, localConcurrency: 1 },
  { batchSize: 100, localConcurrency: 2 },
  { batchSize: 100, localConcurrency: 4 },
  { batchSize: 200, localConcurrency: 1 },
  { batchSize: 200, localConcurrency: 2 },
];

const AGENDA_TRIED: AgendaSettings[] = [
  { processEveryMs: 1000, concurrency: 50, lockLimit: 0, createConcurrently: true },
  { processEveryMs: 1000, concurrency: 50, lockLimit: 0, createConcurrently: false },
  { processEveryMs: 100, concurrency: 50, lockLimit: 0, createConcurrently: false },
  { processEveryMs: 1000, concurrency: 100, lockLimit: 0, createConcurrently: false },
  { processEveryMs: 1000, concurrency: 20, lockLimit: 0, createConcurrently: false },
  { processEveryMs: 1000, concurrency: 50, lockLimit: 50, createConcurrently: false },
];

const line = (settings: string, run: BaselineRun) =>
  `${settings}: ${fmt(run.perSecond)}/s, CPU per delivery ${run.cpuMsPerDelivery ? `${run.cpuMsPerDelivery.work.toFixed(3)} ms (PostgreSQL ${run.cpuMsPerDelivery.postgres.toFixed(3)}, machine ${run.cpuMsPerDelivery.machine.toFixed(3)})` : 'n/a'}`;

if (!only || only === 'pg-boss') {
  for (const settings of PG_BOSS_TRIED) console.log(`(c) pg-boss ${line(pgBossSettingsText(settings), await pgBossBenchmark(events, BATCHED_EVENTS_PER_TRANSACTION, settings))}`);
}
if (!only || only === 'agenda') {
  for (const settings of AGENDA_TRIED)
    console.log(`(b) Agenda ${line(agendaSettingsText(settings), await agendaPerDeliveryBenchmark(events, BATCHED_EVENTS_PER_TRANSACTION, settings))}`);
}
process.exit(0);
