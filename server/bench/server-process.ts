/**
 * The built server (`node server/dist/main.js`) as a child process, so its memory and CPU can be read
 * apart from the benchmark's own clients and producers.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from '../config.js';
import { BENCH_RATE_LIMITS } from './harness.js';

const ENTRY = path.join(REPO_ROOT, 'server/dist/main.js');
/** How much of the child's output is kept for error messages. */
const OUTPUT_KEPT = 32_000;
const READY_POLL_MS = 20;

export interface ServerProcess {
  pid: number;
  /** http://127.0.0.1:<port> */
  url: string;
  /** From spawn to the first /readyz answering 200. */
  readyAfterMs: number;
  output(): string;
  /** SIGTERM, then waits for the exit (SIGKILL after `graceMs`); resolves with the exit code. */
  stop(graceMs?: number): Promise<number | null>;
}

/**
 * Spawns the server with `env` on top of this process's environment (minus what would point it at
 * another database, port or data directory) and resolves once /readyz answers 200.
 * `PORT` must be in `env`; `nodeArgs` go before the script (e.g. --cpu-prof); `entry` is another build's main.js (an A/B);
 * `stdoutFd` an open file the child's stdout is written to instead of a pipe to this process.
 */
export async function startServerProcess(
  env: Record<string, string>,
  options: { nodeArgs?: string[]; readyTimeoutMs?: number; entry?: string; stdoutFd?: number } = {},
): Promise<ServerProcess> {
  const entry = options.entry ?? ENTRY;
  if (!existsSync(entry)) throw new Error(`${entry} is missing: run pnpm --filter @plaza/server build first`);
  if (!env.PORT) throw new Error('startServerProcess needs PORT');
  const inherited = { ...process.env };
  for (const name of ['DATABASE_URL', 'NODE_ENV', 'PORT', 'DATA_DIR', 'RUN_WORKER']) delete inherited[name];
  const startedAt = performance.now();
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), entry], {
    env: { ...inherited, LOG_LEVEL: 'warn', ...BENCH_RATE_LIMITS, ...env },
    // `stdoutFd`: the log lines go to that file, as a deployment's go to its collector, and this process does not read them.
    stdio: ['ignore', options.stdoutFd ?? 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (chunk: Buffer) => void (output = (output + chunk.toString('utf8')).slice(-OUTPUT_KEPT));
  child.stdout?.on('data', keep);
  child.stderr!.on('data', keep);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const running = () => child.exitCode === null && child.signalCode === null;

  const stop = async (graceMs = 30_000) => {
    if (running()) child.kill('SIGTERM');
    // SIGKILL only as a last resort: it would leave the embedded PostgreSQL running without its parent.
    const timer = setTimeout(() => running() && child.kill('SIGKILL'), graceMs);
    const code = await exited;
    clearTimeout(timer);
    return code;
  };

  const url = `http://127.0.0.1:${env.PORT}`;
  try {
    await waitForReady(url, running, options.readyTimeoutMs ?? 120_000);
  } catch (err) {
    await stop(10_000);
    throw new Error(`${(err as Error).message}\n${output}`);
  }
  return { pid: child.pid!, url, readyAfterMs: performance.now() - startedAt, output: () => output, stop };
}

async function waitForReady(url: string, running: () => boolean, timeoutMs: number): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; ; await new Promise((r) => setTimeout(r, READY_POLL_MS))) {
    if (!running()) throw new Error('the server exited before it was ready');
    if (Date.now() > deadline) throw new Error(`the server was not ready within ${timeoutMs} ms`);
    const ok = await fetch(`${url}/readyz`).then(
      async (response) => (await response.arrayBuffer(), response.status === 200),
      () => false,
    );
    if (ok) return;
  }
}

/** A field of /proc/<pid>/status in KiB (VmRSS, VmHWM), or 0 when the process is gone. */
function statusKiB(pid: number, field: string): number {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : 0;
  } catch {
    return 0;
  }
}

/** Resident memory of one process now, in MiB. */
export const residentMiB = (pid: number) => statusKiB(pid, 'VmRSS') / 1024;

/** The most resident memory the process has had since it started (the kernel's high-water mark), in MiB. */
export const peakResidentMiB = (pid: number) => statusKiB(pid, 'VmHWM') / 1024;

/** Every process below `pid` (children, grandchildren...), found through the parent ids in /proc. */
export function descendantPids(pid: number): number[] {
  const childrenOf = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // The command name may hold spaces and parentheses, so the fields are read after its last ')'.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      childrenOf.set(parent, [...(childrenOf.get(parent) ?? []), Number(entry)]);
    } catch {
      // exited while we looked
    }
  }
  const found: number[] = [];
  for (let queue = [pid]; queue.length;) {
    const next = childrenOf.get(queue.shift()!) ?? [];
    found.push(...next);
    queue.push(...next);
  }
  return found;
}

/**
 * Memory of a group of processes in MiB, as the sum of their proportional set sizes: PostgreSQL's
 * backends share its buffers, and a sum of their RSS would count those pages once per backend.
 */
export function proportionalMiB(pids: number[]): number {
  let kib = 0;
  for (const pid of pids) {
    try {
      kib += Number(/^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))?.[1] ?? 0);
    } catch {
      // exited while we looked
    }
  }
  return kib / 1024;
}

/** Linux's clock tick for the CPU times in /proc (USER_HZ, 100 on every mainstream build). */
const MS_PER_TICK = 10;

/** CPU time the whole machine has spent busy (every core, user, system and interrupts), in ms; undefined without /proc. */
export function machineBusyMs(): number | undefined {
  try {
    const [cpuLine = ''] = readFileSync('/proc/stat', 'utf8').split('\n');
    const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = cpuLine.trim().split(/\s+/).slice(1).map(Number);
    return (user + nice + system + irq + softirq + steal) * MS_PER_TICK;
  } catch {
    return undefined;
  }
}

/**
 * CPU time used so far by the processes doing a benchmark's work, in ms: `root` (this process, every
 * thread: the receiver and autocannon run in worker threads) and every process below it (the embedded
 * PostgreSQL's postmaster and backends, a spawned Plaza server and its own PostgreSQL). Other people's
 * processes on a shared machine are not in it, as they are in `machineBusyMs`.
 * Each process counts its own time (utime + stime) and its reaped children's (cutime + cstime): a
 * PostgreSQL backend that exits between two samples is waited for by the postmaster, so its CPU moves
 * into the postmaster's children's time instead of vanishing with it.
 * `postgres` is the part of it in processes named postgres.
 */
export function workProcessesCpuMs(root = process.pid): { total: number; postgres: number } {
  let total = 0;
  let postgres = 0;
  for (const pid of [root, ...descendantPids(root)]) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      // After the command name (which may hold spaces and parentheses): state is field 3, utime field 14.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const ticks = Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
      total += ticks;
      if (stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')) === 'postgres') postgres += ticks;
    } catch {
      // exited and reaped while we looked: its time is in its parent's children's time now
    }
  }
  return { total: total * MS_PER_TICK, postgres: postgres * MS_PER_TICK };
}

/** CPU milliseconds this machine's cores give in a second: a rate of N a second leaves this / N per unit. */
export const cpuMsPerSecond = () => cpus().length * 1000;

/**
 * CPU per unit of work, in ms; null without /proc.
 * `work`: the processes doing the work (`workProcessesCpuMs`), the figure to compare and budget with;
 * `postgres`: PostgreSQL's processes among them; `machine`: every process on the machine, anyone's
 * (on a shared machine it includes colleagues' work, so it is kept for reference only).
 */
export interface CpuPerUnit {
  work: number;
  postgres: number;
  machine: number;
}

/** Starts counting CPU; `per(units)` divides what was used since by the units of work done. */
export function countCpu(): { per(units: number): CpuPerUnit | null } {
  const machine = machineBusyMs();
  const work = workProcessesCpuMs();
  return {
    per: (units) => {
      const machineNow = machineBusyMs();
      if (machine === undefined || machineNow === undefined) return null;
      const workNow = workProcessesCpuMs();
      return { work: (workNow.total - work.total) / units, postgres: (workNow.postgres - work.postgres) / units, machine: (machineNow - machine) / units };
    },
  };
}
