/**
 * Benchmark 5's floor, A/B: `node server/dist/bench/floor-ab.js --builds before=server/dist-before,after=server/dist`
 * spawns one Plaza server per build (each `<dir>/main.js`, on one database, no worker), run as deployed
 * (NODE_ENV=production, LOG_LEVEL at its default, info: one access line per request, written to a file) and drives the floor's
 * request (`{ __typename }`, no credential) at each in turn, round after round, beside the plain node:http
 * reference in this process, with benchmark 5's autocannon settings; prints each one's work CPU per request
 * (the server's process plus this one, where autocannon runs) per round and the median.
 * `--profile <file.cpuprofile>` instead starts Plaza in this process, profiles its main thread (the server;
 * autocannon is a worker thread) during one floor run and prints each layer's share of the samples (at LOG_LEVEL=warn
 * unless given: `LOG_LEVEL=info node … --profile f > /tmp/lines` profiles the access line too), and the functions with the
 * most self time; with `--pages`, each page in turn, in a profile of its own.
 * `--pages` adds, after the floor, the pages whose goals are ratios to it, each at every build in turn: the store's first
 * page and the Webhook Logs' with an API token (`apps:read`, `deliveries:read`, as benchmark 5), and the store signed out
 * (the response cache's hit); the store and its apps, and the log, seeded as benchmark 5 seeds them. The servers' page
 * caches are on (nothing is approved during the runs, so the signed-in store is the page cache's hit).
 * Options: `--rounds 5`, `--seconds 8`, `--connections 50`, `--query '<document>'`. A build given as `name=dir:as-tested`
 * runs without NODE_ENV and at LOG_LEVEL=warn, as this tool ran every build before (no access line at all).
 */
import './production-mode.js';
import 'reflect-metadata';
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { Session } from 'node:inspector/promises';
import path from 'node:path';
import { findFreePort } from '../platform/embedded-postgres.js';
import { benchKey, median, startBenchDatabase, startBenchPlaza } from './harness.js';
import { loadTest, PAGE, seedLog, seedStore, startReferenceServer, STORE_QUERY, WEBHOOK_LOGS_QUERY } from './api-throughput.bench.js';
import { devUserId } from '../modules/identity/identity.service.js';
import { startServerProcess, workProcessesCpuMs, type ServerProcess } from './server-process.js';
import { summariseFunctions, summariseProfile, type CpuProfile } from './profile-summary.js';

const argument = (name: string) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined);
const rounds = Number(argument('--rounds') ?? 5);
const seconds = Number(argument('--seconds') ?? 8);
const connections = Number(argument('--connections') ?? 50);
const query = argument('--query') ?? '{ __typename }';
const body = JSON.stringify({ query });
const headers: Record<string, string> = { 'content-type': 'application/json' };
const pages = process.argv.includes('--pages');

/** One kind of request measured at every server: the floor, and with `--pages` the pages (their token set once seeded). */
interface Row {
  name: string;
  headers: Record<string, string>;
  body: string;
}
const rows: Row[] = [{ name: 'floor', headers, body }];
/**
 * As a deployment runs Plaza: libraries read NODE_ENV as they load (graphql-js drops a development-only check from
 * every type test), and every request writes its access line at the default level (benchmark 5's in-process server
 * logs at warn, which leaves that line out of its floor).
 */
const DEPLOYED_ENV: Record<string, string> = { NODE_ENV: 'production', LOG_LEVEL: 'info' };
const AS_TESTED_ENV: Record<string, string> = { LOG_LEVEL: 'warn' };

/** CPU of this process (every thread), and apart that of `pid`'s process and its children, in ms; read once each. */
const cpuOf = (pid: number | undefined) => {
  const { user, system } = process.cpuUsage();
  const server = pid === undefined ? 0 : workProcessesCpuMs(pid).total;
  return { work: (user + system) / 1000 + server, server };
};

/**
 * `serverMs`: the server's process (and its children) alone, without this process's autocannon, whose CPU follows the
 * answers' count and size alike for two builds and only adds its own spread to a comparison of them; undefined for
 * the reference, which runs in this process.
 */
async function measure(
  url: string,
  pid: number | undefined,
  row: Row = rows[0]!,
): Promise<{ perRequestMs: number; serverMs: number | undefined; requestsPerSecond: number; failed: number }> {
  const { headers, body } = row;
  await loadTest({ url: `${url}/graphql`, headers, body, connections, durationSeconds: 2 });
  const before = cpuOf(pid);
  const run = await loadTest({ url: `${url}/graphql`, headers, body, connections, durationSeconds: seconds });
  const after = cpuOf(pid);
  const serverMs = pid === undefined ? undefined : (after.server - before.server) / run.requests;
  return { perRequestMs: (after.work - before.work) / run.requests, serverMs, requestsPerSecond: run.requestsPerSecond, failed: run.non2xx + run.socketErrors + run.graphqlErrors };
}

async function profile(file: string): Promise<void> {
  const database = await startBenchDatabase();
  if (pages) await seedPages(database.databaseUrl);
  const plaza = await startBenchPlaza(database.databaseUrl, { RUN_WORKER: 'false' });
  const session = new Session();
  try {
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 200 });
    // One profile per row, each after its own warm-up: with `--pages`, `<file>` names the floor's and each page's adds its index.
    for (const [index, row] of rows.entries()) {
      const rowFile = index === 0 ? file : file.replace(/(\.cpuprofile)?$/, `-${index}.cpuprofile`);
      await loadTest({ url: `${plaza.url}/graphql`, headers: row.headers, body: row.body, connections, durationSeconds: 3 });
      await session.post('Profiler.start');
      const run = await loadTest({ url: `${plaza.url}/graphql`, headers: row.headers, body: row.body, connections, durationSeconds: seconds });
      const { profile: taken } = (await session.post('Profiler.stop')) as { profile: CpuProfile };
      if (run.non2xx + run.socketErrors + run.graphqlErrors) throw new Error(`${row.name}: failed requests`);
      writeFileSync(rowFile, JSON.stringify(taken));
      console.log(`\n${row.name}: ${run.requests} requests, ${Math.round(run.requestsPerSecond)}/s; profile in ${rowFile}\n`);
      console.log(summariseProfile(taken));
      console.log(`\n${summariseFunctions(taken)}`);
    }
  } finally {
    session.disconnect();
    await plaza.stop();
    await database.close();
  }
}

/**
 * Benchmark 5's store and log in the database, through an in-process Plaza stopped before the servers start, and the
 * page rows with the bench developer's API token.
 */
async function seedPages(databaseUrl: string): Promise<void> {
  const plaza = await startBenchPlaza(databaseUrl, { RUN_WORKER: 'false' });
  try {
    const appIds = await seedStore(plaza);
    await seedLog(databaseUrl, appIds);
    const { token } = await plaza.services.identity.createApiToken(devUserId('bench@plaza.test'), { name: 'bench', scopes: ['apps:read', 'deliveries:read'] });
    const withToken = { ...headers, authorization: `Bearer ${token}` };
    const page = (document: string) => JSON.stringify({ query: document, variables: { first: PAGE } });
    rows.push(
      { name: 'storeApps(first: 20), API token, page cache', headers: withToken, body: page(STORE_QUERY) },
      { name: 'webhookDeliveries(first: 20), API token', headers: withToken, body: page(WEBHOOK_LOGS_QUERY) },
      { name: 'storeApps(first: 20), signed out, response cache', headers, body: page(STORE_QUERY) },
    );
  } finally {
    await plaza.stop();
  }
}

async function compare(builds: { name: string; dir: string; env: Record<string, string> }[]): Promise<void> {
  const database = await startBenchDatabase();
  const reference = await startReferenceServer();
  const servers: (ServerProcess & { name: string })[] = [];
  // Each server's stdout goes to a file, as a deployment's goes to its log collector: written by the server, read by no one here.
  const logs = mkdtempSync(path.join(tmpdir(), 'floor-ab-'));
  const logFds: number[] = [];
  try {
    if (pages) await seedPages(database.databaseUrl);
    for (const { name, dir, env } of builds) {
      const stdoutFd = openSync(path.join(logs, `${name}.log`), 'a');
      logFds.push(stdoutFd);
      const server = await startServerProcess(
        { ...env, DATABASE_URL: database.databaseUrl, PORT: String(await findFreePort()), RUN_WORKER: 'false', SECRET_ENCRYPTION_KEY: benchKey, WEB_DIST_DIR: '/nonexistent' },
        { entry: path.resolve(dir, 'main.js'), stdoutFd },
      );
      servers.push({ ...server, name });
    }
    const rowName = (row: Row, server: string) => (row === rows[0] ? server : `${server} ${row.name}`);
    const order = [
      { name: 'reference', url: reference.url, pid: undefined as number | undefined, row: rows[0]! },
      ...rows.flatMap((row) => servers.map((s) => ({ name: rowName(row, s.name), url: s.url, pid: s.pid, row }))),
    ];
    const figures = new Map<string, number[]>(order.map((o) => [o.name, []] as [string, number[]]));
    const rates = new Map<string, number[]>([...figures.keys()].map((k) => [k, []]));
    const serverFigures = new Map<string, number[]>([...figures.keys()].map((k) => [k, []]));
    // Every server's compiler warmed before anything counts: on a loaded machine a 2 s warm-up is a few hundred requests.
    for (const { url, row } of order) await loadTest({ url: `${url}/graphql`, headers: row.headers, body: row.body, connections, durationSeconds: seconds });
    for (let round = 0; round < rounds; round++) {
      // Each round in the other order, so neither build always runs first after the reference.
      const thisRound = round % 2 === 0 ? order : [order[0]!, ...order.slice(1).reverse()];
      const line: string[] = [];
      for (const { name, url, pid, row } of thisRound) {
        const result = await measure(url, pid, row);
        if (result.failed) throw new Error(`${name}: ${result.failed} failed requests`);
        figures.get(name)!.push(result.perRequestMs);
        rates.get(name)!.push(result.requestsPerSecond);
        if (result.serverMs !== undefined) serverFigures.get(name)!.push(result.serverMs);
        const server = result.serverMs === undefined ? '' : `, server ${result.serverMs.toFixed(3)} ms`;
        line.push(`${name} ${result.perRequestMs.toFixed(3)} ms (${Math.round(result.requestsPerSecond)}/s${server})`);
      }
      console.log(`round ${round + 1}: ${line.join(', ')}`);
    }
    const referenceMs = median(figures.get('reference')!);
    console.log(`\nservers run with ${builds.map(({ name, env }) => `${name} ${JSON.stringify(env)}`).join(', ')}`);
    console.log(`medians of ${rounds} rounds of ${seconds} s, work CPU per request (this process + the server's):`);
    for (const [name, values] of figures) {
      const server = serverFigures.get(name)!;
      const serverPart = server.length ? `; the server's process alone ${median(server).toFixed(3)} ms` : '';
      console.log(
        `  ${name}: ${median(values).toFixed(3)} ms, ${(median(values) / referenceMs).toFixed(2)}x the reference, ${Math.round(median(rates.get(name)!))}/s${serverPart}`,
      );
    }
  } finally {
    for (const server of servers) await server.stop();
    for (const fd of logFds) closeSync(fd);
    rmSync(logs, { recursive: true, force: true });
    await reference.close();
    await database.close();
  }
}

const profileFile = argument('--profile');
if (profileFile) await profile(profileFile);
else {
  const builds = (argument('--builds') ?? 'current=server/dist').split(',').map((pair) => {
    const [name = '', where = ''] = pair.split('=');
    const [dir = '', mode] = where.split(':');
    return { name, dir, env: mode === 'as-tested' ? AS_TESTED_ENV : DEPLOYED_ENV };
  });
  await compare(builds);
}
process.exit(0);
