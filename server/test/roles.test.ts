import { beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_EMAIL, REVIEWER_EMAIL, startTestPlaza, type TestPlaza } from './helpers/plaza.js';
import { subscribe, type GraphQLTestClient } from './helpers/graphql-client.js';
import { submitApp } from './helpers/factories.js';

// The contract's second round: admins find users by e-mail and grant or revoke REVIEWER and ADMIN.
// Roles are read on every request, so a session already open acts with the change at its next one.

const BY_EMAIL = 'query($email: String!) { userByEmail(email: $email) { id email roles configuredRoles points } }';
const GRANT = 'mutation($userId: ID!, $role: String!) { grantRole(userId: $userId, role: $role) { id roles } }';
const REVOKE = 'mutation($userId: ID!, $role: String!) { revokeRole(userId: $userId, role: $role) { id roles } }';
const QUEUE = '{ reviewQueue(first: 1) { edges { node { id } } } }';
const ME = '{ me { roles } }';

let plaza: TestPlaza;
let admin: GraphQLTestClient;

beforeAll(async () => {
  plaza = await startTestPlaza();
  admin = await plaza.signIn(ADMIN_EMAIL);
});

describe('userByEmail', () => {
  it('finds an account by its address in any case, and answers null for an unknown one', async () => {
    const user = await plaza.signIn('Finder.Target@plaza.test');
    const { userByEmail } = await admin.ok<{ userByEmail: any }>(BY_EMAIL, { email: '  FINDER.target@PLAZA.test ' });
    expect(userByEmail).toMatchObject({ id: user.userId, email: 'finder.target@plaza.test', roles: ['DEVELOPER', 'USER'], configuredRoles: [], points: 0 });
    expect((await admin.ok<{ userByEmail: unknown }>(BY_EMAIL, { email: 'nobody@plaza.test' })).userByEmail).toBeNull();
  });

  it('is for admins only', async () => {
    const reviewer = await plaza.signIn(REVIEWER_EMAIL);
    expect((await reviewer.error(BY_EMAIL, { email: ADMIN_EMAIL })).extensions?.code).toBe('FORBIDDEN');
  });
});

describe('grantRole and revokeRole', () => {
  it('a granted role works from the session’s next request, and a revoked one stops', async () => {
    const user = await plaza.signIn('new-reviewer@plaza.test');
    expect((await user.error(QUEUE)).extensions?.code).toBe('FORBIDDEN');

    const { grantRole } = await admin.ok<{ grantRole: { roles: string[] } }>(GRANT, { userId: user.userId, role: 'REVIEWER' });
    expect(grantRole.roles).toContain('REVIEWER');
    // The same session, no new sign-in.
    await user.ok(QUEUE);
    expect((await user.ok<{ me: { roles: string[] } }>(ME)).me.roles).toContain('REVIEWER');
    // Granting again changes nothing.
    expect((await admin.ok<{ grantRole: { roles: string[] } }>(GRANT, { userId: user.userId, role: 'REVIEWER' })).grantRole.roles.filter((r) => r === 'REVIEWER')).toHaveLength(1);

    const { revokeRole } = await admin.ok<{ revokeRole: { roles: string[] } }>(REVOKE, { userId: user.userId, role: 'REVIEWER' });
    expect(revokeRole.roles).toEqual(['DEVELOPER', 'USER']);
    expect((await user.error(QUEUE)).extensions?.code).toBe('FORBIDDEN');
  });

  it('a granted ADMIN administers, and also reviews', async () => {
    const user = await plaza.signIn('new-admin@plaza.test');
    await admin.ok(GRANT, { userId: user.userId, role: 'ADMIN' });
    expect((await user.ok<{ userByEmail: { id: string } }>(BY_EMAIL, { email: ADMIN_EMAIL })).userByEmail.id).toBe(admin.userId);
    await user.ok(QUEUE);
    // REVIEWER comes with ADMIN: revoking it alone would not take effect, so it is refused.
    const implied = await admin.error(REVOKE, { userId: user.userId, role: 'REVIEWER' });
    expect(implied.extensions).toMatchObject({ code: 'CONFLICT', reason: 'ROLE_IMPLIED_BY_ADMIN' });
    await admin.ok(REVOKE, { userId: user.userId, role: 'ADMIN' });
    expect((await user.error(BY_EMAIL, { email: ADMIN_EMAIL })).extensions?.code).toBe('FORBIDDEN');
  });

  it('any role but REVIEWER or ADMIN is BAD_USER_INPUT on role, and changes nothing', async () => {
    const user = await plaza.signIn('not-an-owner@plaza.test');
    for (const role of ['OWNER', 'reviewer', 'DEVELOPER', '']) {
      for (const document of [GRANT, REVOKE]) {
        const error = await admin.error(document, { userId: user.userId, role });
        expect(error.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'role' });
      }
    }
    expect((await admin.ok<{ userByEmail: { roles: string[] } }>(BY_EMAIL, { email: 'not-an-owner@plaza.test' })).userByEmail.roles).toEqual(['DEVELOPER', 'USER']);
    expect((await admin.error(GRANT, { userId: 'dev_nobody', role: 'REVIEWER' })).extensions?.code).toBe('NOT_FOUND');
  });

  it('a role from PLATFORM_*_EMAILS, or one’s own ADMIN, cannot be revoked: CONFLICT saying why, and the role stays', async () => {
    const reviewer = await plaza.signIn(REVIEWER_EMAIL);
    const fromConfig = await admin.error(REVOKE, { userId: reviewer.userId, role: 'REVIEWER' });
    expect(fromConfig.extensions).toMatchObject({ code: 'CONFLICT', reason: 'ROLE_FROM_CONFIGURATION' });
    expect(fromConfig.message).toMatch(/PLATFORM_REVIEWER_EMAILS/);
    await reviewer.ok(QUEUE);
    expect((await admin.ok<{ userByEmail: { configuredRoles: string[] } }>(BY_EMAIL, { email: REVIEWER_EMAIL })).userByEmail.configuredRoles).toEqual(['REVIEWER']);

    const own = await admin.error(REVOKE, { userId: admin.userId, role: 'ADMIN' });
    expect(own.extensions).toMatchObject({ code: 'CONFLICT', reason: 'OWN_ADMIN_ROLE' });
    expect((await admin.ok<{ me: { roles: string[] } }>(ME)).me.roles).toContain('ADMIN');
  });
});

describe('open WebSockets after revokeRole', () => {
  const DELIVERIES = 'subscription { webhookDeliveryUpdated { id appId } }';

  it('a revoked admin’s live subscription to every app’s deliveries is closed, not kept with the old role', async () => {
    const granted = await plaza.signIn('socket-admin@plaza.test');
    await admin.ok(GRANT, { userId: granted.userId, role: 'ADMIN' });
    const developer = await plaza.signIn('socket-owner@studio.test');
    const { id: appId } = await submitApp(developer, { webhookUrl: 'https://hooks.example/plaza' });

    // A real graphql-ws client, connected while its user is an ADMIN: it sees another developer's deliveries.
    const live = granted.websocket();
    let closed: { code: number; reason: string } | undefined;
    live.on('closed', (event) => (closed = event as { code: number; reason: string }));
    const before = plaza.services.pubSub.subscriptionCount;
    const updates = subscribe<{ webhookDeliveryUpdated: { appId: string } }>(live, DELIVERIES);
    await plaza.waitForSubscriptions(before + 1);
    await developer.ok('mutation($appId: ID!) { sendTestWebhook(appId: $appId) { id } }', { appId });
    expect((await updates.waitFor(1, 15_000))[0].webhookDeliveryUpdated.appId).toBe(appId);

    await admin.ok(REVOKE, { userId: granted.userId, role: 'ADMIN' });
    // The socket is closed (4403, saying why) and the subscription is gone from the server.
    await expect.poll(() => closed, { timeout: 15_000 }).toBeDefined();
    expect(closed).toMatchObject({ code: 4403, reason: expect.stringMatching(/role/) });
    await expect.poll(() => plaza.services.pubSub.subscriptionCount, { timeout: 15_000 }).toBe(before);
    // The same session still works over HTTP, without the role.
    expect((await granted.ok<{ me: { roles: string[] } }>(ME)).me.roles).toEqual(['DEVELOPER', 'USER']);
    await live.dispose();
  });
});
