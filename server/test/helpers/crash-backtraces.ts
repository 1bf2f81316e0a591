import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { EmbeddedDatabase } from '../../src/platform/embedded-postgres.js';

/**
 * Backtraces of the server processes of `database` that crashed, from the core files they left: a crash
 * otherwise leaves only its log lines ("terminated by signal 11" and the statement), too little to tell a
 * PostgreSQL bug from ours or to find the part of a statement that met it. Needs the server started with
 * keepCoreFiles and gdb here (.ci/run installs it); core files go to the cluster's directory (the kernel's
 * default) or to core_pattern's directory, where only those of the processes the log says crashed are read.
 */
export function postgresCrashBacktraces(database: Pick<EmbeddedDatabase, 'clusterDir' | 'postgresBinary' | 'trouble'>): string[] {
  const crashed = [
    ...database
      .trouble()
      .join('\n')
      .matchAll(/\(PID (\d+)\) was terminated by signal/g),
  ].map(([, pid]) => pid!);
  const cores = [...coresIn(database.clusterDir), ...coresIn(coreDirectory()).filter((file) => crashed.some((pid) => path.basename(file).split('.').includes(pid)))];
  if (cores.length === 0) return [];
  if (!hasGdb()) return [`${cores.length} core file(s) (${cores.join(', ')}) and no gdb here to read them`];
  return cores.slice(0, 3).map((core) => {
    try {
      const backtrace = execFileSync('gdb', ['-batch', '-nx', '-ex', 'bt 40', '-ex', 'info registers rip', database.postgresBinary, core], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
        timeout: 60_000,
      });
      return `${core}:\n${backtrace
        .split('\n')
        // gdb prints the frame it stops in, then the same as the backtrace's first line.
        .filter((line, k, lines) => /^#\d|^rip/.test(line) && lines.indexOf(line) === k)
        .join('\n')}`;
    } catch (err) {
      return `${core}: gdb could not read it (${(err as Error).message.split('\n')[0]})`;
    }
  });
}

/** Where the kernel writes core files when core_pattern names a directory ('/tmp/cores/core.%e.%p'); a pipe to a handler or a bare name (the process's own directory, the cluster's for PostgreSQL) names none. */
function coreDirectory(): string | undefined {
  try {
    const pattern = readFileSync('/proc/sys/kernel/core_pattern', 'utf8').trim();
    return pattern.startsWith('/') ? path.dirname(pattern) : undefined;
  } catch {
    return undefined;
  }
}

function coresIn(dir: string | undefined): string[] {
  if (!dir || !existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => /^core(\.|$)/.test(name))
    .map((name) => path.join(dir, name));
}

function hasGdb(): boolean {
  try {
    execFileSync('gdb', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
