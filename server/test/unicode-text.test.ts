import { beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_EMAIL, REVIEWER_EMAIL, startTestPlaza, type TestPlaza } from './helpers/plaza.js';
import type { GraphQLTestClient } from './helpers/graphql-client.js';
import { DECIDE, SUBMIT_APP, UPDATE_APP, submitApp, validAppInput } from './helpers/factories.js';

// Issue 15, item 10: invisible and text-direction characters make a name read as something else.

let plaza: TestPlaza;
let developer: GraphQLTestClient;
let reviewer: GraphQLTestClient;
let admin: GraphQLTestClient;

beforeAll(async () => {
  plaza = await startTestPlaza();
  [developer, reviewer, admin] = await Promise.all([plaza.signIn('unicode@studio.test'), plaza.signIn(REVIEWER_EMAIL), plaza.signIn(ADMIN_EMAIL)]);
});

const storedAppCount = async () => Number((await plaza.services.db.query('SELECT count(*) AS n FROM apps'))[0].n);

/** Each shows differently from what it stores: reversed, hidden, or a look-alike of another name. */
const TRICKS = {
  'right-to-left override (U+202E)': 'Plaza Wallet\u202Egnp.exe',
  'left-to-right embedding (U+202A)': 'Wallet \u202Aabc',
  'pop directional formatting (U+202C)': 'Wallet\u202C',
  'right-to-left isolate (U+2067)': 'Wallet \u2067cba\u2069',
  'first strong isolate (U+2068)': '\u2068Wallet',
  'right-to-left mark (U+200F)': 'Wallet\u200F',
  'zero-width space (U+200B)': 'Wal\u200Blet',
  'zero-width non-joiner (U+200C)': 'Wal\u200Clet',
  'zero-width joiner between letters (U+200D)': 'Wal\u200Dlet',
  'word joiner (U+2060)': 'Wal\u2060let',
  'byte order mark (U+FEFF)': '\uFEFFWallet',
  'soft hyphen (U+00AD)': 'Wal\u00ADlet',
  'right-to-left Arabic letter mark (U+061C)': 'Wallet\u061C',
  'pair of tag characters (U+E0041)': 'Wallet\u{E0041}\u{E0042}',
  'line separator (U+2028)': 'Wallet\u2028Pro',
};

describe('app names and descriptions', () => {
  it.each(Object.entries(TRICKS))('refuse a %s, naming the field, and store nothing', async (_, text) => {
    const before = await storedAppCount();
    const byName = await developer.error(SUBMIT_APP, { input: validAppInput({ name: text }) });
    expect(byName.extensions).toEqual({ code: 'BAD_USER_INPUT', field: 'name' });
    expect(byName.message).toMatch(/invisible or text-direction characters \(found U\+[0-9A-F]{4,5}\)/);
    const byDescription = await developer.error(SUBMIT_APP, { input: validAppInput({ shortDescription: `Pays your bills ${text}` }) });
    expect(byDescription.extensions).toEqual({ code: 'BAD_USER_INPUT', field: 'shortDescription' });
    expect(await storedAppCount()).toBe(before);
  });

  it('name the character found, so the developer can find it', async () => {
    const error = await developer.error(SUBMIT_APP, { input: validAppInput({ name: 'Plaza Wallet\u202Egnp.exe' }) });
    expect(error.message).toBe('name must not contain invisible or text-direction characters (found U+202E)');
  });

  it('refuse them in an update too, leaving the app as it was', async () => {
    const app = await submitApp(developer);
    expect((await developer.error(UPDATE_APP, { id: app.id, input: { name: 'Plaza Wallet\u202Egnp.exe' } })).extensions).toEqual({ code: 'BAD_USER_INPUT', field: 'name' });
    expect((await developer.error(UPDATE_APP, { id: app.id, input: { shortDescription: 'Fast\u200B and safe' } })).extensions).toEqual({
      code: 'BAD_USER_INPUT',
      field: 'shortDescription',
    });
    const { app: after } = await developer.ok<{ app: { name: string; shortDescription: string; revision: number } }>(
      'query($id: ID!) { app(id: $id) { name shortDescription revision } }',
      { id: app.id },
    );
    expect(after).toEqual({ name: app.name, shortDescription: app.shortDescription, revision: app.revision });
  });

  it('keep emoji joined into one picture, right-to-left scripts and accents', async () => {
    // ZWJ between emoji is how 👩‍💻 and 👨‍👩‍👧 are written; Arabic and Hebrew need no control characters.
    for (const name of ['Dev Tools 👩‍💻', 'Family 👨‍👩‍👧 Planner', 'Rainbow 🏳️‍🌈', 'Coder 👩🏽‍💻', 'Ví Tiền Việt', 'محفظة Wallet', 'ארנק']) {
      const app = await submitApp(developer, { name });
      expect(app.name).toBe(name);
    }
  });
});

describe('notes and reasons people read', () => {
  it('refuse a review note with a direction override, and the app stays pending', async () => {
    const app = await submitApp(developer);
    const error = await reviewer.error(DECIDE, { input: { appId: app.id, outcome: 'REJECTED', reasons: ['OTHER'], note: 'Looks fine \u202Eton si ti' } });
    expect(error.extensions).toEqual({ code: 'BAD_USER_INPUT', field: 'note' });
    const { app: after } = await developer.ok<{ app: { status: string; reviewDecisions: unknown[] } }>('query($id: ID!) { app(id: $id) { status reviewDecisions { id } } }', {
      id: app.id,
    });
    expect(after).toEqual({ status: 'PENDING_REVIEW', reviewDecisions: [] });
    // Line breaks in a note are fine.
    await reviewer.ok(DECIDE, { input: { appId: app.id, outcome: 'REJECTED', reasons: ['OTHER'], note: 'The icon is blurry.\nPlease upload 512x512.' } });
  });

  it('refuse a hidden character in an API token name', async () => {
    const error = await developer.error('mutation($input: CreateApiTokenInput!) { createApiToken(input: $input) { id } }', { input: { name: 'CI\u200B', scopes: ['apps:read'] } });
    expect(error.extensions).toEqual({ code: 'BAD_USER_INPUT', field: 'name' });
  });

  it('refuse a refund reason or credit reason with one, and refund or credit nothing', async () => {
    const app = await submitApp(developer, { pricing: 'PAID', pricePoints: 5 });
    await reviewer.ok(DECIDE, { input: { appId: app.id, outcome: 'APPROVED' } });
    const buyer = await plaza.signIn('unicode-buyer@plaza.test');
    await admin.ok('mutation($userId: ID!) { creditPoints(userId: $userId, points: 5, reason: "gift") { points } }', { userId: buyer.userId });
    const credit = await admin.error('mutation($userId: ID!) { creditPoints(userId: $userId, points: 5, reason: "gift\u2066") { points } }', { userId: buyer.userId });
    expect(credit.extensions).toEqual({ code: 'BAD_USER_INPUT', field: 'reason' });
    const { purchaseApp } = await buyer.ok<{ purchaseApp: { purchaseId: string } }>('mutation($appId: ID!) { purchaseApp(appId: $appId) { purchaseId } }', { appId: app.id });
    const refund = await admin.error('mutation($id: String!) { refundPurchase(purchaseId: $id, reason: "duplicate\u202E") { status } }', { id: purchaseApp.purchaseId });
    expect(refund.extensions).toEqual({ code: 'BAD_USER_INPUT', field: 'reason' });
    const { myPurchases } = await buyer.ok<{ myPurchases: { edges: { node: { status: string } }[] } }>('{ myPurchases { edges { node { status } } } }');
    expect(myPurchases.edges).toEqual([{ node: { status: 'COMPLETED' } }]);
    expect((await buyer.ok<{ myPointsBalance: { points: number } }>('{ myPointsBalance { points } }')).myPointsBalance.points).toBe(0);
  });
});
