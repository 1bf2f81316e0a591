import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from '../config.js';
import { devUserId } from '../modules/identity/identity.service.js';
import { median, startBenchDatabase, startBenchPlaza } from './harness.js';
import type { BenchSize } from './report-format.js';

/** The built `plaza`, as `pnpm plaza` and an npm install run it. */
const CLI = path.join(REPO_ROOT, 'packages/cli/dist/main.js');
/** The issue's bound for each command on loopback, node's own start included. */
const TARGET_MS = 500;

export interface CliStartupRow {
  command: string;
  runsMs: number[];
  medianMs: number;
}

export interface CliStartupResult {
  runs: number;
  rows: CliStartupRow[];
}

/** Wall time of one run, spawn to exit; asynchronous, so the Plaza in this process keeps answering meanwhile. */
function timeRun(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const started = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      if (code === 0) resolve(ms);
      else reject(new Error(`${args.join(' ')} exited ${code}: ${stderr}`));
    });
  });
}

/**
 * Benchmark 9: how long `plaza` takes to answer, from spawning node to its exit, against a Plaza on
 * loopback: `node -e 0` (the floor no command can beat), --help and --version (no request), and commands
 * that read from Plaza over HTTP. Runs alternate between the commands, so a burst of load on a shared
 * machine falls on all of them; each figure is the median.
 */
export async function cliStartupBenchmark(size: BenchSize): Promise<CliStartupResult> {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run pnpm --filter @plaza/cli build first`);
  const runs = size === 'tiny' ? 3 : 15;
  const database = await startBenchDatabase();
  const plaza = await startBenchPlaza(database.databaseUrl, { RUN_WORKER: 'false' });
  const home = mkdtempSync(path.join(tmpdir(), 'plaza-cli-bench-'));
  try {
    await plaza.services.identity.signIn({ id: devUserId('bench@plaza.test'), email: 'bench@plaza.test', provider: 'dev' });
    const { token } = await plaza.services.identity.createApiToken(devUserId('bench@plaza.test'), {
      name: 'bench',
      scopes: ['apps:read', 'deliveries:read', 'deliveries:write'],
    });
    const env = { PATH: process.env.PATH, HOME: home, XDG_CONFIG_HOME: home, PLAZA_URL: plaza.url, PLAZA_TOKEN: token, NO_COLOR: '1' };
    const commands: [string, string[]][] = [
      ['node -e 0 (the floor)', ['-e', '0']],
      ['plaza --help', [CLI, '--help']],
      ['plaza --version', [CLI, '--version']],
      ['plaza whoami', [CLI, 'whoami']],
      ['plaza apps --json', [CLI, 'apps', '--json']],
      ['plaza deliveries --limit 20 --json', [CLI, 'deliveries', '--limit', '20', '--json']],
    ];
    const times = commands.map((): number[] => []);
    // One untimed round first: the file system cache and the server's first requests.
    for (const [, args] of commands) await timeRun(args, env);
    for (let i = 0; i < runs; i++) for (const [index, [, args]] of commands.entries()) times[index]!.push(await timeRun(args, env));
    return { runs, rows: commands.map(([command], index) => ({ command, runsMs: times[index]!, medianMs: median(times[index]!) })) };
  } finally {
    await plaza.stop();
    await database.close();
    rmSync(home, { recursive: true, force: true });
  }
}

export function cliStartupReport(result: CliStartupResult): string {
  const rows = result.rows.map((r) => {
    const floor = r.command.startsWith('node');
    const sorted = [...r.runsMs].sort((a, b) => a - b);
    return `| ${floor ? r.command : `\`${r.command}\``} | **${Math.round(r.medianMs)} ms** | ${Math.round(sorted[0]!)}-${Math.round(sorted.at(-1)!)} ms | ${floor ? '' : r.medianMs <= TARGET_MS ? 'met' : 'NOT met'} |`;
  });
  return `## 9. CLI start-up (\`plaza\` against a Plaza on loopback, spawn to exit, median of ${result.runs})

| Command | Median | Range | At most ${TARGET_MS} ms |
|---|---|---|---|
${rows.join('\n')}

Each run is \`node packages/cli/dist/main.js …\` spawned from the benchmark, timed from the spawn to its exit, so
Node's own start (the first row) is inside every figure. The commands that read from Plaza send one or two
GraphQL requests over HTTP to a Plaza in the benchmark's process (API only, an API token). What bounds it:
Node's start, then loading the CLI's entry (commander and the command's own module); each command loads its
code when it runs, and ws and graphql-ws only when it opens a live connection (they, @inquirer/prompts and
node:https were loaded by every command before, --help included: 1.2-1.8 s then on this machine).
`;
}
