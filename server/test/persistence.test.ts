import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findFreePort } from '../src/platform/embedded-postgres.js';
import { GraphQLTestClient } from './helpers/graphql-client.js';
import { APP_FIELDS, DECIDE, UPDATE_APP, submitApp } from './helpers/factories.js';
import { startPlazaProcess, type PlazaProcess } from './helpers/process.js';

// /tmp, not the checkout: the embedded PostgreSQL runs as the postgres user, which must reach it.
const dataDir = mkdtempSync(path.join(tmpdir(), 'plaza-persist-'));
chmodSync(dataDir, 0o755);
let current: PlazaProcess | undefined;
afterAll(async () => {
  await current?.stop('SIGTERM');
  rmSync(dataDir, { recursive: true, force: true });
});

const APP = `query($id: ID!) { app(id: $id) { ${APP_FIELDS} } }`;
const REVEAL = 'mutation($appId: ID!) { revealClientSecret(appId: $appId) { value } }';

describe('pnpm start on the embedded database', () => {
  // Several PostgreSQL starts and Plaza boots: 35-44 s measured on two cores beside a second copy of the suite.
  it('keeps every app, decision and secret across a clean stop and a SIGKILL', { timeout: 120_000 }, async () => {
    const port = String(await findFreePort());
    const env = { DATA_DIR: dataDir, PORT: port, PLATFORM_REVIEWER_EMAILS: 'reviewer@plaza.test', WEB_DIST_DIR: '/nonexistent' };

    current = await startPlazaProcess(env);
    const developer = await GraphQLTestClient.signIn(current.url, 'keeper@studio.test');
    const reviewer = await GraphQLTestClient.signIn(current.url, 'reviewer@plaza.test');
    const app = await submitApp(developer, { name: 'Persistent Pets' });
    await reviewer.ok(DECIDE, { input: { appId: app.id, outcome: 'REJECTED', reasons: ['INVALID_ICON'] } });
    await developer.ok(UPDATE_APP, { id: app.id, input: { iconUrl: 'https://apps.example.com/pets/icon-512.png' } });
    await reviewer.ok(DECIDE, { input: { appId: app.id, outcome: 'APPROVED' } });
    const secret = (await developer.ok<{ revealClientSecret: any }>(REVEAL, { appId: app.id })).revealClientSecret.value;
    // Development generates the encryption key into .data so secrets survive restarts without setup.
    const keyFile = path.join(dataDir, 'secret-encryption-key');
    expect(existsSync(keyFile)).toBe(true);
    const key = readFileSync(keyFile, 'utf8');

    const firstRun = current;
    expect(await firstRun.stop('SIGTERM'), firstRun.output()).toBe(0);

    const expectEverythingThere = async () => {
      const { app: after } = await developer.ok<{ app: any }>(APP, { id: app.id });
      expect(after).toMatchObject({ status: 'APPROVED', name: 'Persistent Pets', iconUrl: 'https://apps.example.com/pets/icon-512.png' });
      expect(after.reviewDecisions.map((d: any) => d.outcome)).toEqual(['REJECTED', 'APPROVED']);
      expect((await developer.ok<{ revealClientSecret: any }>(REVEAL, { appId: app.id })).revealClientSecret.value).toBe(secret);
      expect(readFileSync(keyFile, 'utf8')).toBe(key);
    };

    current = await startPlazaProcess(env);
    // The same sign-in still works: sessions live in the database too.
    await expectEverythingThere();

    // A crash leaves the embedded PostgreSQL running without its parent; the next start must cope.
    await current.stop('SIGKILL');
    current = await startPlazaProcess(env);
    await expectEverythingThere();
    const lastRun = current;
    expect(await lastRun.stop('SIGTERM'), lastRun.output()).toBe(0);
    current = undefined;
  });
});
