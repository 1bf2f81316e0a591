import { createHmac } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_EMAIL, REVIEWER_EMAIL, startTestPlaza, type TestPlaza } from './helpers/plaza.js';
import type { GraphQLTestClient } from './helpers/graphql-client.js';
import { APP_FIELDS, DECIDE, UPDATE_APP, submitApp } from './helpers/factories.js';

const REVEAL = 'mutation($appId: ID!) { revealClientSecret(appId: $appId) { appId value createdAt } }';
const ROTATE = 'mutation($appId: ID!) { rotateClientSecret(appId: $appId) { appId value createdAt } }';
const APP = `query($id: ID!) { app(id: $id) { ${APP_FIELDS} } }`;
const AUDIT = 'query($id: ID!) { app(id: $id) { clientSecretAudit { action actorId at } } }';

let plaza: TestPlaza;
let owner: GraphQLTestClient;
let otherDeveloper: GraphQLTestClient;

beforeAll(async () => {
  plaza = await startTestPlaza();
  owner = await plaza.signIn('owner@studio.test');
  otherDeveloper = await plaza.signIn('rival@elsewhere.test');
});

describe('client secrets', () => {
  it('exists from submission, shaped whsec_ + base64 of 32 bytes, and is stable between reveals', async () => {
    const app = await submitApp(owner);
    const first = (await owner.ok<{ revealClientSecret: any }>(REVEAL, { appId: app.id })).revealClientSecret;
    expect(first.appId).toBe(app.id);
    expect(first.value).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(first.value.slice('whsec_'.length), 'base64')).toHaveLength(32);
    const second = (await owner.ok<{ revealClientSecret: any }>(REVEAL, { appId: app.id })).revealClientSecret;
    expect(second).toEqual(first);
  });

  it('is stored as AES-256-GCM ciphertext with a key id, never as the secret', async () => {
    const app = await submitApp(owner);
    const { value } = (await owner.ok<{ revealClientSecret: any }>(REVEAL, { appId: app.id })).revealClientSecret;
    const [row] = await plaza.services.db.query('SELECT key_id, ciphertext, ciphertext::text AS as_text FROM client_secrets WHERE app_id = $1', [app.id]);
    expect(row.key_id).toMatch(/^[0-9a-f]{12}$/);
    const stored: Buffer = row.ciphertext;
    // 12-byte IV + 16-byte tag + the 50-byte secret.
    expect(stored.length).toBe(12 + 16 + value.length);
    expect(stored.includes(Buffer.from(value))).toBe(false);
    expect(stored.includes(Buffer.from(value.slice(6), 'base64'))).toBe(false);
    // Nowhere else in the database either.
    const dump = await plaza.services.db.query(
      "SELECT count(*) AS n FROM (SELECT row_to_json(t)::text AS j FROM apps t UNION ALL SELECT row_to_json(t)::text FROM client_secret_audit t UNION ALL SELECT row_to_json(t)::text FROM notifications t) all_rows WHERE j LIKE '%' || $1 || '%'",
      [value.slice(6, 30)],
    );
    expect(Number(dump[0].n)).toBe(0);
  });

  it('cannot be moved to another app: a ciphertext copied onto another row does not decrypt', async () => {
    const [a, b] = [await submitApp(owner), await submitApp(owner)];
    await plaza.services.db.query('UPDATE client_secrets SET ciphertext = (SELECT ciphertext FROM client_secrets WHERE app_id = $1) WHERE app_id = $2', [a.id, b.id]);
    const error = await owner.error(REVEAL, { appId: b.id });
    expect(error.extensions?.code).toBe('INTERNAL_SERVER_ERROR');
    expect(JSON.stringify(error)).not.toMatch(/whsec_|aes|decrypt|stack/i);
  });

  it('rotates to a new value that is then the one revealed, and audits every reveal and rotation', async () => {
    const app = await submitApp(owner);
    const before = (await owner.ok<{ revealClientSecret: any }>(REVEAL, { appId: app.id })).revealClientSecret;
    const rotated = (await owner.ok<{ rotateClientSecret: any }>(ROTATE, { appId: app.id })).rotateClientSecret;
    expect(rotated.value).not.toBe(before.value);
    expect(Date.parse(rotated.createdAt)).toBeGreaterThanOrEqual(Date.parse(before.createdAt));
    expect((await owner.ok<{ revealClientSecret: any }>(REVEAL, { appId: app.id })).revealClientSecret.value).toBe(rotated.value);
    // The webhook signer uses the same, current secret.
    const signing = await plaza.services.secrets.signingSecret(app.id);
    expect(createHmac('sha256', signing).update('x').digest('hex')).toBe(createHmac('sha256', rotated.value).update('x').digest('hex'));

    const audit = (await owner.ok<{ app: any }>(AUDIT, { id: app.id })).app.clientSecretAudit;
    expect(audit.map((e: any) => e.action)).toEqual(['REVEAL', 'ROTATE', 'REVEAL']);
    expect(audit.every((e: any) => e.actorId === owner.userId)).toBe(true);
  });

  it('is only for the owner: another developer, a reviewer and an admin are refused, and nothing is audited', async () => {
    const app = await submitApp(owner);
    const reviewer = await plaza.signIn(REVIEWER_EMAIL);
    const admin = await plaza.signIn(ADMIN_EMAIL);
    for (const mutation of [REVEAL, ROTATE]) {
      // The pending app is invisible to another developer, so it does not even exist for them.
      expect((await otherDeveloper.error(mutation, { appId: app.id })).extensions?.code).toBe('NOT_FOUND');
      expect((await reviewer.error(mutation, { appId: app.id })).extensions?.code).toBe('FORBIDDEN');
      expect((await admin.error(mutation, { appId: app.id })).extensions?.code).toBe('FORBIDDEN');
      expect((await plaza.anonymous().error(mutation, { appId: app.id })).extensions?.code).toBe('UNAUTHENTICATED');
    }
    await reviewer.ok(DECIDE, { input: { appId: app.id, outcome: 'APPROVED' } });
    // Once listed the app is public, but its secret is still not the other developer's business.
    expect((await otherDeveloper.error(REVEAL, { appId: app.id })).extensions?.code).toBe('FORBIDDEN');
    expect((await owner.ok<{ app: any }>(AUDIT, { id: app.id })).app.clientSecretAudit).toEqual([]);
  });
});

describe('who sees an app', () => {
  it('hides a pending app from other developers and the public, and shows it to owner and reviewers', async () => {
    const app = await submitApp(owner, { webhookUrl: 'https://hooks.studio.test/plaza' });
    expect((await otherDeveloper.ok<{ app: any }>(APP, { id: app.id })).app).toBeNull();
    expect((await plaza.anonymous().ok<{ app: any }>(APP, { id: app.id })).app).toBeNull();
    expect((await otherDeveloper.ok<{ myApps: any[] }>('{ myApps { id } }')).myApps.map((a) => a.id)).not.toContain(app.id);
    expect((await owner.ok<{ app: any }>(APP, { id: app.id })).app.webhookUrl).toBe('https://hooks.studio.test/plaza');
    const reviewer = await plaza.signIn(REVIEWER_EMAIL);
    expect((await reviewer.ok<{ app: any }>(APP, { id: app.id })).app.status).toBe('PENDING_REVIEW');
  });

  it('does not let another developer edit an app, even a listed one', async () => {
    const app = await submitApp(owner);
    expect((await otherDeveloper.error(UPDATE_APP, { id: app.id, input: { name: 'Hijacked' } })).extensions?.code).toBe('NOT_FOUND');
    const reviewer = await plaza.signIn(REVIEWER_EMAIL);
    await reviewer.ok(DECIDE, { input: { appId: app.id, outcome: 'APPROVED' } });
    expect((await otherDeveloper.error(UPDATE_APP, { id: app.id, input: { name: 'Hijacked' } })).extensions?.code).toBe('FORBIDDEN');
    // The public view of a listed app leaves out the developer's webhook URL and review history.
    const publicView = (await otherDeveloper.ok<{ app: any }>(APP, { id: app.id })).app;
    expect(publicView).toMatchObject({ name: app.name, status: 'APPROVED', webhookUrl: null, reviewDecisions: [] });
  });
});
