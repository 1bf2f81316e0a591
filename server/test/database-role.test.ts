import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { startPlaza, type RunningPlaza } from '../src/app/plaza.js';
import { findFreePort, startEmbeddedPostgres } from '../src/platform/embedded-postgres.js';
import { startTestPlaza, TEST_ENCRYPTION_KEY } from './helpers/plaza.js';
import { withClient } from './helpers/database.js';
import { GraphQLTestClient } from './helpers/graphql-client.js';

// Issue 24, item 15: Plaza's own database role owns its database and nothing more; a superuser only makes it.

const dirs: string[] = [];
const running: RunningPlaza[] = [];
afterAll(async () => {
  // Each one stops even when one before it fails; the test has reported its own result already.
  for (const plaza of running.splice(0)) await plaza.stop().catch(() => undefined);
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A Plaza on the embedded PostgreSQL of `dataDir` (no DATABASE_URL), as `pnpm start` runs it. */
async function startEmbeddedPlaza(dataDir: string): Promise<RunningPlaza> {
  const config = loadConfig({ NODE_ENV: 'test', PORT: String(await findFreePort()), DATA_DIR: dataDir, SECRET_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY, WEB_DIST_DIR: '/nonexistent' });
  const plaza = await startPlaza(config);
  running.push(plaza);
  return plaza;
}

async function stopPlaza(plaza: RunningPlaza): Promise<void> {
  running.splice(running.indexOf(plaza), 1);
  await plaza.stop();
}

/** The SQLSTATE of `sql` as `client`, or 'ok'. */
const outcome = (client: pg.Client, sql: string) =>
  client.query(sql).then(
    () => 'ok',
    (err: { code?: string }) => err.code ?? String(err),
  );

/** What the role of `client` is and may do. */
async function roleOfClient(client: pg.Client) {
  const [role] = (
    await client.query(
      `SELECT current_user AS name, rolsuper, rolcreaterole, rolcreatedb, rolreplication, rolbypassrls,
              (SELECT pg_get_userbyid(datdba) FROM pg_database WHERE datname = current_database()) AS database_owner,
              (SELECT count(*)::int FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                WHERE n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_toast%' AND c.relowner <> r.oid) AS relations_owned_by_others,
              (SELECT count(*)::int FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public') AS relations
         FROM pg_roles r WHERE r.rolname = current_user`,
    )
  ).rows;
  return role;
}

/** The objects of the current database that `role` owns (catalog and object id), in one order. */
async function ownedBy(client: pg.Client, role: string): Promise<{ catalog: string; objid: string }[]> {
  const { rows } = await client.query(
    `SELECT classid::regclass::text AS catalog, objid::text AS objid FROM pg_shdepend
      WHERE deptype = 'o' AND refobjid = $1::regrole AND dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
      ORDER BY 1, 2`,
    [role],
  );
  return rows;
}

/** What the role behind `url` is and may do, tried. */
async function roleOf(url: string) {
  const elsewhere = new URL(url);
  elsewhere.pathname = '/postgres';
  const otherDatabase = await withClient(elsewhere.toString(), async () => 'ok').catch((err: { code?: string }) => err.code ?? String(err));
  return withClient(url, async (client) => ({
    ...(await roleOfClient(client)),
    createRole: await outcome(client, 'CREATE ROLE plaza_intruder'),
    readPasswords: await outcome(client, 'SELECT rolpassword FROM pg_authid'),
    createDatabase: await outcome(client, 'CREATE DATABASE plaza_other'),
    otherDatabase,
  }));
}

const INSUFFICIENT_PRIVILEGE = '42501';
const PLAIN_OWNER = {
  rolsuper: false,
  rolcreaterole: false,
  rolcreatedb: false,
  rolreplication: false,
  rolbypassrls: false,
  relations_owned_by_others: 0,
  createRole: INSUFFICIENT_PRIVILEGE,
  readPasswords: INSUFFICIENT_PRIVILEGE,
  createDatabase: INSUFFICIENT_PRIVILEGE,
  otherDatabase: INSUFFICIENT_PRIVILEGE, // the cluster's postgres database
};

/** A data directory in /tmp, which the postgres user can traverse. */
function dataDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'plaza-role-'));
  chmodSync(dir, 0o755);
  dirs.push(dir);
  return path.join(dir, 'data');
}

const readyz = async (plaza: RunningPlaza) => (await fetch(`${plaza.url}/readyz`)).status;

describe('the embedded database role', () => {
  it('is a plain role that owns the plaza database and every table in it, and the platform serves on it', { timeout: 120_000 }, async () => {
    const dir = dataDir();
    const plaza = await startEmbeddedPlaza(dir);
    const role = await roleOf(plaza.databaseUrl);
    expect(role).toMatchObject({ ...PLAIN_OWNER, database_owner: role.name });
    expect(role.relations).toBeGreaterThan(20); // the migrations ran as this role
    expect(await readyz(plaza)).toBe(200);
    // What `pnpm worker` joins with is that role too: no superuser credentials in Plaza's configuration.
    const shared = JSON.parse(readFileSync(path.join(dir, 'embedded-postgres.json'), 'utf8')) as { url: string };
    expect(shared.url).toBe(plaza.databaseUrl);
    expect(decodeURIComponent(new URL(shared.url).username)).toBe(role.name);
  });

  it('a data directory of an earlier Plaza, where the superuser owned everything, is handed to the plain role on the next start, data kept', { timeout: 180_000 }, async () => {
    const dir = dataDir();
    const first = await startEmbeddedPlaza(dir);
    const member = await GraphQLTestClient.signIn(first.url, 'kept@users.test');
    const appRole = decodeURIComponent(new URL(first.databaseUrl).username);
    await stopPlaza(first);

    // Make it what an earlier Plaza left: the superuser (plaza) owns the database and everything in it, and no other role exists.
    const clusterDir = path.join(dir, 'pg');
    const superuserUrl = (plazaUrl: string, database = 'plaza') => {
      const url = new URL(plazaUrl);
      url.username = 'plaza';
      url.password = readFileSync(path.join(clusterDir, 'plaza-password'), 'utf8').trim();
      url.pathname = `/${database}`;
      return url.toString();
    };
    let ownedBefore: unknown[] = [];
    const cluster = await startEmbeddedPostgres({ databaseDir: clusterDir, fsync: false });
    try {
      if (appRole !== 'plaza') {
        await withClient(superuserUrl(cluster.url), async (admin) => {
          ownedBefore = await ownedBy(admin, appRole);
          await admin.query(`REASSIGN OWNED BY ${appRole} TO plaza`);
        });
        await withClient(superuserUrl(cluster.url, 'postgres'), (admin) => admin.query(`DROP ROLE ${appRole}`));
        rmSync(path.join(clusterDir, 'plaza-app-password'), { force: true });
      }
      // (Before the fix Plaza's role is that superuser itself, and the checks below fail on it.)
    } finally {
      await cluster.stop();
    }

    const upgraded = await startEmbeddedPlaza(dir);
    const role = await roleOf(upgraded.databaseUrl);
    expect(role).toMatchObject({ ...PLAIN_OWNER, database_owner: role.name });
    expect(await readyz(upgraded)).toBe(200);
    // The same account, still there, still signs in; and a new row can be written as the plain role.
    const rows = await withClient(upgraded.databaseUrl, (client) => client.query('SELECT id FROM accounts WHERE email = $1', ['kept@users.test']));
    expect(rows.rows).toEqual([{ id: member.userId }]);
    await GraphQLTestClient.signIn(upgraded.url, 'new-after-upgrade@users.test');
    // Everything it owned before (tables, partitions, sequences, types) is its own again.
    expect(ownedBefore.length).toBeGreaterThan(20);
    expect(await withClient(superuserUrl(upgraded.databaseUrl), (admin) => ownedBy(admin, role.name))).toEqual(ownedBefore);
    expect(existsSync(path.join(clusterDir, 'plaza-password'))).toBe(true); // the superuser's, kept beside the cluster only
  });

  it.runIf(!process.env.TEST_DATABASE_URL)('the test databases are owned by that plain role too, so every test runs as Plaza does', async () => {
    const plaza = await startTestPlaza();
    const role = await roleOf(plaza.databaseUrl);
    expect(role).toMatchObject({ ...PLAIN_OWNER, database_owner: role.name });
  });
});
