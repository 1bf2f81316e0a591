import { beforeAll, describe, expect, it } from 'vitest';
import { startTestPlaza, type TestPlaza } from './helpers/plaza.js';
import type { GraphQLTestClient } from './helpers/graphql-client.js';
import { APP_FIELDS, SUBMIT_APP, UPDATE_APP, submitApp, validAppInput } from './helpers/factories.js';

let plaza: TestPlaza;
let developer: GraphQLTestClient;

beforeAll(async () => {
  plaza = await startTestPlaza({ WEBHOOK_ALLOW_PRIVATE_URLS: 'false' });
  developer = await plaza.signIn('dev@studio.test');
});

const storedAppCount = async () => Number((await plaza.services.db.query('SELECT count(*) AS n FROM apps'))[0].n);
const storedSecretCount = async () => Number((await plaza.services.db.query('SELECT count(*) AS n FROM client_secrets'))[0].n);

describe('submitApp', () => {
  it('stores a valid submission as PENDING_REVIEW with an app_<ULID> id, due 24 hours later', async () => {
    const before = Date.now();
    const app = await submitApp(developer, { pricing: 'PAID', pricePoints: 50, webhookUrl: 'https://hooks.example.com/plaza' });
    expect(app.id).toMatch(/^app_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(app.status).toBe('PENDING_REVIEW');
    expect(app.pricePoints).toBe(50);
    expect(app.ownerId).toBe(developer.userId);
    const submittedAt = Date.parse(app.submittedAt);
    expect(submittedAt).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(app.reviewDueAt) - submittedAt).toBe(24 * 60 * 60 * 1000);
    const { myApps } = await developer.ok<{ myApps: { id: string }[] }>('{ myApps { id } }');
    expect(myApps.map((a) => a.id)).toContain(app.id);
  });

  it('counts a 120-character description as valid, including multi-byte characters', async () => {
    const app = await submitApp(developer, { shortDescription: 'Ứ'.repeat(120) });
    expect([...app.shortDescription].length).toBe(120);
  });

  it('lower-cases the category and lists the twelve decided categories', async () => {
    const app = await submitApp(developer, { category: 'Travel' });
    expect(app.category).toBe('travel');
    const { categories } = await developer.ok<{ categories: { id: string; name: string }[] }>('{ categories { id name label } }');
    expect(categories.map((c) => c.id)).toEqual([
      'games',
      'education',
      'entertainment',
      'finance',
      'health',
      'lifestyle',
      'news',
      'productivity',
      'shopping',
      'social',
      'travel',
      'utilities',
    ]);
  });

  // One failing field at a time: the answer names it, says why, and nothing is stored.
  // The rules the web form cannot run (they depend on configuration) also carry a reason to word them by.
  const invalid: [string, Record<string, unknown>, string, RegExp, string?][] = [
    ['empty name', { name: '  ' }, 'name', /required/],
    ['name over 60 characters', { name: 'n'.repeat(61) }, 'name', /at most 60/],
    ['short description over 120 characters', { shortDescription: 'd'.repeat(121) }, 'shortDescription', /at most 120 characters \(it has 121\)/],
    ['empty short description', { shortDescription: '' }, 'shortDescription', /required/],
    ['short description on two lines', { shortDescription: 'one\ntwo' }, 'shortDescription', /one line/],
    ['icon URL over http', { iconUrl: 'http://apps.example.com/icon.png' }, 'iconUrl', /HTTPS/],
    ['icon URL that is not a URL', { iconUrl: 'icon.png' }, 'iconUrl', /absolute URL/],
    ['app URL over http', { appUrl: 'http://apps.example.com/' }, 'appUrl', /HTTPS/],
    ['app URL with credentials', { appUrl: 'https://user:pw@apps.example.com/' }, 'appUrl', /user name or password/],
    ['app URL with javascript:', { appUrl: 'javascript:alert(1)' }, 'appUrl', /HTTPS/],
    ['unknown category', { category: 'casino' }, 'category', /one of games, education/],
    ['paid without a price', { pricing: 'PAID', pricePoints: null }, 'pricePoints', /required for a paid app/],
    ['paid with price 0', { pricing: 'PAID', pricePoints: 0 }, 'pricePoints', /greater than 0/],
    ['paid with a negative price', { pricing: 'PAID', pricePoints: -5 }, 'pricePoints', /greater than 0/],
    ['free with a price', { pricing: 'FREE', pricePoints: 10 }, 'pricePoints', /empty for a free app/],
    ['webhook URL over http', { webhookUrl: 'http://hooks.example.com/' }, 'webhookUrl', /HTTPS/, 'WEBHOOK_NOT_HTTPS'],
    ['webhook URL on loopback', { webhookUrl: 'https://127.0.0.1/hook' }, 'webhookUrl', /internal address/, 'WEBHOOK_INTERNAL_ADDRESS'],
    ['webhook URL on a decimal loopback spelling', { webhookUrl: 'https://2130706433/hook' }, 'webhookUrl', /internal address/, 'WEBHOOK_INTERNAL_ADDRESS'],
    ['webhook URL on the metadata address', { webhookUrl: 'https://169.254.169.254/latest' }, 'webhookUrl', /internal address/, 'WEBHOOK_INTERNAL_ADDRESS'],
    ['webhook URL on localhost', { webhookUrl: 'https://localhost/hook' }, 'webhookUrl', /internal host name/, 'WEBHOOK_INTERNAL_ADDRESS'],
    ['webhook URL that is not a URL', { webhookUrl: 'hooks' }, 'webhookUrl', /absolute URL/],
    ['long description over 4,000 characters', { longDescription: 'ả'.repeat(4001) }, 'longDescription', /at most 4000 characters \(it has 4001\)/],
    ['long description with a text-direction override', { longDescription: 'Safe\u202Etxt.exe' }, 'longDescription', /invisible or text-direction characters \(found U\+202E\)/],
    [
      'a second screenshot over http',
      { screenshotUrls: ['https://apps.example.com/1.png', 'http://apps.example.com/2.png'] },
      'screenshotUrls[1]',
      /^screenshotUrls\[1\] must use HTTPS/,
    ],
    ['a screenshot that is not a URL', { screenshotUrls: ['shot.png'] }, 'screenshotUrls[0]', /absolute URL/],
    ['six screenshots', { screenshotUrls: [1, 2, 3, 4, 5, 6].map((n) => `https://apps.example.com/${n}.png`) }, 'screenshotUrls[5]', /at most 5 screenshots \(6 given\)/],
    ['support URL over http', { supportUrl: 'http://apps.example.com/help' }, 'supportUrl', /^supportUrl must use HTTPS/],
    ['privacy policy URL with credentials', { privacyPolicyUrl: 'https://user:pw@apps.example.com/privacy' }, 'privacyPolicyUrl', /user name or password/],
  ];
  it.each(invalid)('refuses %s, naming the field and storing nothing', async (_case, override, field, why, reason) => {
    const [apps, secrets] = [await storedAppCount(), await storedSecretCount()];
    const error = await developer.error(SUBMIT_APP, { input: validAppInput(override) });
    expect(error.extensions).toEqual({ code: 'BAD_USER_INPUT', field, ...(reason ? { reason } : {}) });
    expect(error.message).toMatch(why);
    expect(await storedAppCount()).toBe(apps);
    expect(await storedSecretCount()).toBe(secrets);
  });

  it('stores the app page details: a multi-line long description, screenshots in order, support and privacy pages; none is empty', async () => {
    const details = {
      longDescription: '  Quizzes every morning.\n\nScores kept per family.  ',
      screenshotUrls: ['https://apps.example.com/quiz/2.png', 'https://apps.example.com/quiz/1.png'],
      supportUrl: 'https://apps.example.com/quiz/help',
      privacyPolicyUrl: 'https://apps.example.com/quiz/privacy',
    };
    const query = `query($id: ID!) { app(id: $id) { longDescription screenshotUrls supportUrl privacyPolicyUrl } }`;
    const app = await submitApp(developer, details);
    expect((await developer.ok<{ app: any }>(query, { id: app.id })).app).toEqual({ ...details, longDescription: 'Quizzes every morning.\n\nScores kept per family.' });
    const plain = await submitApp(developer, { longDescription: '   ', supportUrl: '' });
    expect((await developer.ok<{ app: any }>(query, { id: plain.id })).app).toEqual({ longDescription: null, screenshotUrls: [], supportUrl: null, privacyPolicyUrl: null });
  });

  it('refuses an unknown pricing value through the GraphQL type, naming the field', async () => {
    const error = await developer.error(SUBMIT_APP, { input: validAppInput({ pricing: 'CHEAP' }) });
    expect(error.extensions?.code).toBe('BAD_USER_INPUT');
    expect(error.extensions?.field).toBe('pricing');
  });

  it('requires a signed-in developer', async () => {
    const error = await plaza.anonymous().error(SUBMIT_APP, { input: validAppInput() });
    expect(error.extensions?.code).toBe('UNAUTHENTICATED');
  });

  it('answers 401 for a token that is not valid', async () => {
    const result = await developer.withToken('plz_s_not-a-real-session').request('{ me { id } }');
    expect(result.status).toBe(401);
    expect(result.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  });
});

describe('updateApp', () => {
  it('applies the same rules to each field and changes nothing when one fails', async () => {
    const app = await submitApp(developer);
    const error = await developer.error(UPDATE_APP, { id: app.id, input: { shortDescription: 'x'.repeat(121), name: 'Renamed' } });
    expect(error.extensions).toEqual({ code: 'BAD_USER_INPUT', field: 'shortDescription' });
    const { app: after } = await developer.ok<{ app: any }>(`query($id: ID!) { app(id: $id) { ${APP_FIELDS} } }`, { id: app.id });
    expect(after.name).toBe(app.name);
    expect(after.revision).toBe(app.revision);
  });

  it('refuses a sixth screenshot or an http support page on edit, naming it, and changes nothing', async () => {
    const shots = ['https://apps.example.com/1.png', 'https://apps.example.com/2.png'];
    const app = await submitApp(developer, { screenshotUrls: shots, supportUrl: 'https://apps.example.com/help' });
    const tooMany = await developer.error(UPDATE_APP, { id: app.id, input: { screenshotUrls: [...shots, ...shots, ...shots], name: 'Renamed' } });
    expect(tooMany.extensions).toEqual({ code: 'BAD_USER_INPUT', field: 'screenshotUrls[5]' });
    const http = await developer.error(UPDATE_APP, { id: app.id, input: { supportUrl: 'http://apps.example.com/help' } });
    expect(http.extensions).toEqual({ code: 'BAD_USER_INPUT', field: 'supportUrl' });
    const { app: after } = await developer.ok<{ app: any }>(`query($id: ID!) { app(id: $id) { name revision screenshotUrls supportUrl } }`, { id: app.id });
    expect(after).toEqual({ name: app.name, revision: app.revision, screenshotUrls: shots, supportUrl: 'https://apps.example.com/help' });
  });

  it('refuses switching to PAID without a price, and clears the price when switching to FREE', async () => {
    const app = await submitApp(developer, { pricing: 'PAID', pricePoints: 20 });
    expect((await developer.error(UPDATE_APP, { id: app.id, input: { pricePoints: null } })).extensions?.field).toBe('pricePoints');
    const { updateApp } = await developer.ok<{ updateApp: any }>(UPDATE_APP, { id: app.id, input: { pricing: 'FREE' } });
    expect(updateApp).toMatchObject({ pricing: 'FREE', pricePoints: null });
  });

  it('refuses a null for a required field', async () => {
    const app = await submitApp(developer);
    expect((await developer.error(UPDATE_APP, { id: app.id, input: { name: null } })).extensions).toEqual({ code: 'BAD_USER_INPUT', field: 'name' });
  });
});
