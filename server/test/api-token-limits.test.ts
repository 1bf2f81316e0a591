import { beforeAll, describe, expect, it } from 'vitest';
import { startTestPlaza, type TestPlaza } from './helpers/plaza.js';
import type { GraphQLTestClient } from './helpers/graphql-client.js';

const CREATE = 'mutation($name: String!) { createApiToken(input: { name: $name, scopes: ["apps:read"] }) { id token } }';
const REVOKE = 'mutation($id: ID!) { revokeApiToken(id: $id) }';
/** Each account's budget here: small, so a test can empty it quickly; each token's alone would allow far more. */
const PER_ACCOUNT = 30;

let plaza: TestPlaza;

beforeAll(async () => {
  plaza = await startTestPlaza({ RATE_LIMIT_PER_ACCOUNT: String(PER_ACCOUNT), RATE_LIMIT_PER_API_TOKEN: '1000' });
});

const create = (client: GraphQLTestClient, name: string) => client.request<{ createApiToken: { id: string; token: string } }>(CREATE, { name });

describe('API tokens of one account', () => {
  it('are at most 50 live at once: the 51st is refused with CONFLICT TOO_MANY_TOKENS, even when asked for all at once', async () => {
    const developer = await plaza.signIn('many-tokens@studio.test');
    // 60 at once: the limit must hold against itself too, not only one request after another.
    const results = await Promise.all(Array.from({ length: 60 }, (_, i) => create(developer, `ci ${i}`)));
    const created = results.flatMap((result) => (result.data?.createApiToken ? [result.data.createApiToken] : []));
    expect(created).toHaveLength(50);
    for (const refused of results.filter((result) => !result.data?.createApiToken)) {
      expect(refused.errors?.[0]?.extensions).toMatchObject({ code: 'CONFLICT', reason: 'TOO_MANY_TOKENS' });
      expect(refused.errors?.[0]?.message).toMatch(/50 live API tokens/);
    }

    // A revoked token, and an expired one, no longer count.
    await developer.ok(REVOKE, { id: created[0]!.id });
    await plaza.services.db.query("UPDATE api_tokens SET expires_at = now() - interval '1 second' WHERE id = $1", [created[1]!.id]);
    expect((await create(developer, 'after revoking')).data?.createApiToken).toBeTruthy();
    expect((await create(developer, 'after expiry')).data?.createApiToken).toBeTruthy();
    expect((await create(developer, 'one too many')).errors?.[0]?.extensions).toMatchObject({ code: 'CONFLICT', reason: 'TOO_MANY_TOKENS' });

    // Another account has its own 50.
    const other = await plaza.signIn('other-tokens@studio.test');
    expect((await create(other, 'first')).data?.createApiToken).toBeTruthy();
  });

  it("draw on their account's budget together: more tokens buy no more requests", async () => {
    const developer = await plaza.signIn('budget@studio.test');
    const tokens: GraphQLTestClient[] = [];
    for (let i = 0; i < 6; i++) tokens.push(developer.withToken((await developer.ok<{ createApiToken: { token: string } }>(CREATE, { name: `t${i}` })).createApiToken.token));

    const started = Date.now();
    const results = await Promise.all(Array.from({ length: 4 * PER_ACCOUNT }, (_, i) => tokens[i % tokens.length]!.request('{ me { id } }')));
    const elapsedMinutes = (Date.now() - started) / 60_000;
    const answered = results.filter((result) => result.status === 200 && result.data);
    const refused = results.filter((result) => result.status === 429);
    // A full bucket, and whatever it refilled meanwhile (PER_ACCOUNT a minute), however slow the machine.
    expect(answered.length).toBeGreaterThanOrEqual(PER_ACCOUNT);
    expect(answered.length).toBeLessThanOrEqual(PER_ACCOUNT + Math.ceil(elapsedMinutes * PER_ACCOUNT) + 1);
    expect(answered.length + refused.length).toBe(results.length);
    expect(refused[0]?.errors?.[0]?.extensions).toMatchObject({ code: 'RATE_LIMITED' });
    expect(refused[0]?.errors?.[0]?.message).toMatch(/account/);

    // A session of the same person is counted by its address, not by the account's API budget.
    expect((await developer.request('{ me { id } }')).status).toBe(200);
    // Nor does another account pay for this one.
    const other = await plaza.signIn('budget-other@studio.test');
    const otherToken = other.withToken((await other.ok<{ createApiToken: { token: string } }>(CREATE, { name: 'own' })).createApiToken.token);
    expect((await otherToken.request('{ me { id } }')).status).toBe(200);
  });
});
