import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { REVIEWER_EMAIL, startTestPlaza, type TestPlaza } from './helpers/plaza.js';
import type { GraphQLTestClient } from './helpers/graphql-client.js';
import { SUBMIT_APP, UPDATE_APP, submitApp, validAppInput } from './helpers/factories.js';
import { CATEGORIES } from '../src/modules/apps/app.types.js';

// Issue 7: any input gets an answer with a code, never a 500 or a hang.

const INPUT_FIELDS = ['name', 'shortDescription', 'iconUrl', 'appUrl', 'category', 'pricing', 'pricePoints', 'webhookUrl'];
const KNOWN_CODES = ['BAD_USER_INPUT', 'UNAUTHENTICATED', 'FORBIDDEN', 'NOT_FOUND', 'CONFLICT', 'RATE_LIMITED'];
const REQUEST_TIMEOUT_MS = 10_000;

let plaza: TestPlaza;
let developer: GraphQLTestClient;

beforeAll(async () => {
  // Hundreds of requests a second from one address: the per-address rate limit is not what is under test.
  // The properties submit hundreds of valid apps as one developer: room for them all past the default cap of 100.
  plaza = await startTestPlaza({ WEBHOOK_ALLOW_PRIVATE_URLS: 'false', RATE_LIMIT_PER_ADDRESS: '1000000', MAX_APPS_PER_DEVELOPER: '1000' });
  developer = await plaza.signIn('fuzz@studio.test');
});

interface Answer {
  status: number;
  body: { data?: Record<string, any> | null; errors?: { message: string; extensions?: { code?: string; field?: string } }[] };
}

/** One POST /graphql with a deadline: a hang fails the property instead of the whole file. */
async function post(query: string, variables: Record<string, unknown>, as: GraphQLTestClient = developer): Promise<Answer> {
  const response = await fetch(`${plaza.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${as.token}` },
    body: JSON.stringify({ query, variables }),
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  const text = await response.text();
  return { status: response.status, body: JSON.parse(text) };
}

const myAppIds = async () => (await developer.ok<{ myApps: { id: string }[] }>('{ myApps { id } }')).myApps.map((a) => a.id);
const codePoints = (s: string) => [...s].length;
const CONTROL = /\p{Cc}/u;
const LONE_SURROGATE = /\p{Cs}/u;

function isUrlWith(value: unknown, protocols: string[]): boolean {
  if (typeof value !== 'string' || CONTROL.test(value) || LONE_SURROGATE.test(value)) return false;
  try {
    const url = new URL(value);
    return protocols.includes(url.protocol) && !url.username && !url.password && url.hostname !== '';
  } catch {
    return false;
  }
}

/** Every rule of the contract, checked on an app as the API returns it (read back from the database). */
function expectObeysContract(app: Record<string, any>) {
  const text = (s: unknown) => typeof s === 'string' && !LONE_SURROGATE.test(s) && !CONTROL.test(s) && s === s.trim();
  expect(text(app.name) && codePoints(app.name) >= 1 && codePoints(app.name) <= 60, `name ${JSON.stringify(app.name)}`).toBe(true);
  expect(
    text(app.shortDescription) && codePoints(app.shortDescription) >= 1 && codePoints(app.shortDescription) <= 120,
    `shortDescription ${JSON.stringify(app.shortDescription)}`,
  ).toBe(true);
  expect(isUrlWith(app.iconUrl, ['https:']), `iconUrl ${JSON.stringify(app.iconUrl)}`).toBe(true);
  expect(isUrlWith(app.appUrl, ['https:']), `appUrl ${JSON.stringify(app.appUrl)}`).toBe(true);
  expect(CATEGORIES).toContain(app.category);
  if (app.pricing === 'FREE') expect(app.pricePoints).toBeNull();
  else {
    expect(app.pricing).toBe('PAID');
    expect(Number.isInteger(app.pricePoints) && app.pricePoints > 0 && app.pricePoints <= 1_000_000, `pricePoints ${app.pricePoints}`).toBe(true);
  }
  // This Plaza refuses private destinations, so an accepted webhook URL is https.
  if (app.webhookUrl !== null) expect(isUrlWith(app.webhookUrl, ['https:']), `webhookUrl ${JSON.stringify(app.webhookUrl)}`).toBe(true);
}

/** The answer is data, or an error with a known code that names the field at fault. */
function expectCodedAnswer(answer: Answer, root: 'submitApp' | 'updateApp') {
  expect(answer.status, JSON.stringify(answer.body)).toBeLessThan(500);
  if (answer.body.data?.[root]) {
    expect(answer.body.errors ?? []).toEqual([]);
    return answer.body.data[root];
  }
  const error = answer.body.errors?.[0];
  expect(error, JSON.stringify(answer.body)).toBeDefined();
  expect(KNOWN_CODES, JSON.stringify(error)).toContain(error!.extensions?.code);
  if (error!.extensions?.code === 'BAD_USER_INPUT') expect(INPUT_FIELDS, JSON.stringify(error)).toContain(error!.extensions.field);
  return undefined;
}

// --- Arbitraries -------------------------------------------------------------------------------

const LONE_SURROGATES = ['\uD800', '\uDBFF', '\uDC00', '\uDFFF', 'a\uD83D', '\uDE00b'];
const anyText = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 80 }),
  fc.string({ unit: 'grapheme', maxLength: 130 }),
  fc.string({ unit: fc.constantFrom('\u0000', '\u0007', '\t', '\n', '\r', '\u007f', '\u0085', '\u200b', '\u2028', ' ', 'a', 'Ứ', '😀', ...LONE_SURROGATES), maxLength: 20 }),
  fc.tuple(fc.constantFrom('a', 'Ứ', '😀', ' '), fc.integer({ min: 50, max: 10_000 })).map(([c, n]) => c.repeat(n)),
  fc.constantFrom('', ' ', '\u0000', 'Quiz\u0000Time', 'x'.repeat(60), 'x'.repeat(61), 'd'.repeat(120), 'd'.repeat(121), '😀'.repeat(120), '😀'.repeat(121), ...LONE_SURROGATES),
);
/** Values GraphQL variables can carry that are not strings. */
const wrongType = fc.oneof(fc.constant(null), fc.integer(), fc.double(), fc.boolean(), fc.constant([]), fc.constant({}), fc.constant(['https://a.example']));

const host = fc.constantFrom(
  'apps.example.com',
  'example',
  'bücher.example',
  'xn--bcher-kva.example',
  'EXAMPLE.COM',
  '127.0.0.1',
  '10.0.0.8',
  '169.254.169.254',
  '0x7f.1',
  '2130706433',
  '[::1]',
  '[fe80::1]',
  '[::ffff:127.0.0.1]',
  'localhost',
  'metadata.google.internal',
  '',
  'a..b',
  '-x.example',
  'exa mple.com',
  'exa\u0000mple.com',
  'ex%41mple.com',
);
const structuredUrl = fc
  .record({
    scheme: fc.constantFrom('https://', 'http://', 'HTTPS://', 'javascript:', 'data:', 'ftp://', 'file://', '//', '', 'https:', 'https:/', 'https:\\\\', ' https://', 'https://\t'),
    userinfo: fc.constantFrom('', '', '', 'user@', 'user:pass@', ':@', 'a%40b@'),
    host,
    port: fc.constantFrom('', '', '', ':443', ':8443', ':0', ':65535', ':65536', ':99999', ':', ':x'),
    path: fc.oneof(
      fc.constant('/'),
      fc.constant(''),
      fc.webPath(),
      fc.string({ unit: 'binary', maxLength: 30 }).map((s) => `/${s}`),
    ),
    suffix: fc.constantFrom('', '', '?q=1', '#frag', '\u0000', '\n', ' '),
  })
  .map(({ scheme, userinfo, host, port, path, suffix }) => `${scheme}${userinfo}${host}${port}${path}${suffix}`);
const anyUrl = fc.oneof(
  { arbitrary: fc.constant('https://apps.example.com/quiz/'), weight: 3 },
  { arbitrary: structuredUrl, weight: 6 },
  { arbitrary: fc.webUrl({ withQueryParameters: true, withFragments: true }), weight: 2 },
  {
    arbitrary: fc.constantFrom(
      'javascript:alert(1)',
      'data:text/html,<script>alert(1)</script>',
      'https://',
      'https:///x',
      'https://a.example/' + 'p'.repeat(2100),
      'https://a.example/' + 'p'.repeat(9_000),
    ),
    weight: 1,
  },
  { arbitrary: anyText, weight: 1 },
  { arbitrary: wrongType, weight: 1 },
);

const category = fc.oneof(
  { arbitrary: fc.constantFrom(...CATEGORIES), weight: 4 },
  { arbitrary: fc.constantFrom(...CATEGORIES).map((c) => ` ${c.toUpperCase()} `), weight: 1 },
  { arbitrary: fc.constantFrom('game', 'Games\u0000', 'gamés', 'GAMES\n', 'other', ''), weight: 1 },
  { arbitrary: anyText, weight: 1 },
  { arbitrary: wrongType, weight: 1 },
);
const pricing = fc.oneof(
  { arbitrary: fc.constantFrom('FREE', 'PAID'), weight: 6 },
  { arbitrary: fc.constantFrom('free', 'Paid', 'SUBSCRIPTION', '', 'FREE '), weight: 1 },
  { arbitrary: wrongType, weight: 1 },
);
const pricePoints = fc.oneof(
  { arbitrary: fc.constant(null), weight: 4 },
  { arbitrary: fc.integer({ min: 1, max: 1000 }), weight: 3 },
  { arbitrary: fc.constantFrom(0, -1, -2147483648, 2147483647, 2147483648, 1_000_000, 1_000_001, 1.5, 1e21, -0.0), weight: 2 },
  { arbitrary: fc.integer(), weight: 1 },
  { arbitrary: fc.constantFrom('5', '1e3', 'NaN', ''), weight: 1 },
  { arbitrary: fc.double(), weight: 1 },
);
const name = fc.oneof({ arbitrary: fc.constant('Quiz Time'), weight: 3 }, { arbitrary: anyText, weight: 4 }, { arbitrary: wrongType, weight: 1 });
const shortDescription = fc.oneof(
  { arbitrary: fc.constant('Daily trivia for the whole family'), weight: 3 },
  { arbitrary: anyText, weight: 4 },
  { arbitrary: wrongType, weight: 1 },
);
const webhookUrl = fc.oneof(
  { arbitrary: fc.constant(null), weight: 3 },
  { arbitrary: fc.constant('https://hooks.example.com/plaza'), weight: 1 },
  { arbitrary: anyUrl, weight: 3 },
);

const fields = { name, shortDescription, iconUrl: anyUrl, appUrl: anyUrl, category, pricing, pricePoints, webhookUrl };
/** A valid submission of each pricing, to break a few fields of at a time. */
const validBase = fc.constantFrom<Record<string, unknown>>(
  { ...validAppInput(), pricing: 'FREE', pricePoints: null, webhookUrl: null },
  { ...validAppInput(), pricing: 'PAID', pricePoints: 50, webhookUrl: 'https://hooks.example.com/plaza' },
);
/** Mostly a valid input with up to three fields replaced by arbitrary (possibly missing) values; sometimes all wild. */
const inputOf = (requiredKeys: (keyof typeof fields)[]) =>
  fc.oneof(
    {
      arbitrary: fc
        .tuple(validBase, fc.record(fields, { requiredKeys }))
        .chain(([base, wild]) =>
          fc.subarray(INPUT_FIELDS, { maxLength: 3 }).map((broken) => ({ ...base, ...Object.fromEntries(broken.map((f) => [f, (wild as Record<string, unknown>)[f]])) })),
        ),
      weight: 4,
    },
    { arbitrary: fc.record(fields, { requiredKeys }), weight: 1 },
  );
const submitInput = inputOf(['name', 'shortDescription', 'iconUrl', 'appUrl', 'category', 'pricing']);
/** For updates every field is optional: missing ones stay as they were. */
const updateInput = fc.oneof(
  fc.record(fields, { requiredKeys: [] }),
  inputOf([]).chain((input) => fc.subarray(Object.keys(input)).map((keep) => Object.fromEntries(keep.map((k) => [k, (input as Record<string, unknown>)[k]])))),
);

/**
 * FC_NUM_RUNS=5000 for a long hunt. Every run is made: no time limit interrupts a property (one that
 * did, unmarked, passed on fewer cases under load); a hung request fails its case after
 * REQUEST_TIMEOUT_MS, and each property's own test timeout is the bound (about 20 s quiet, 48 s
 * measured under load, 120 s allowed).
 */
const RUNS = { numRuns: Number(process.env.FC_NUM_RUNS) || 200 };

describe('submitApp under arbitrary input', () => {
  it('answers every input with a coded error or a valid stored app, and a refusal stores nothing', async () => {
    let accepted = 0;
    // Only this property submits meanwhile, so what the last case read back is what this one starts from:
    // two requests a case (the submission, the read back), not three.
    let before = await myAppIds();
    await fc.assert(
      fc.asyncProperty(submitInput, async (input) => {
        const answer = await post(SUBMIT_APP, { input });
        const app = expectCodedAnswer(answer, 'submitApp');
        const now = await myAppIds();
        if (app) {
          expectObeysContract(app);
          expect(app.status).toBe('PENDING_REVIEW');
          // What was stored is what was sent (normalised), not a mangled version of it.
          expect(app.name).toBe((input.name as string).trim());
          expect(app.shortDescription).toBe((input.shortDescription as string).trim());
          expect([app.iconUrl, app.appUrl]).toEqual([input.iconUrl, input.appUrl]);
          expect(now.sort()).toEqual([...before, app.id].sort());
          accepted += 1;
        } else {
          expect(now.sort(), 'a refused submission stored an app').toEqual(before.sort());
        }
        before = now;
      }),
      RUNS,
    );
    // The arbitraries lean towards valid values, so the accepting branch is exercised too.
    expect(accepted).toBeGreaterThan(0);
  }, 120_000);
});

describe('updateApp under arbitrary input', () => {
  it('answers every input with a coded error or a valid stored app, and a refusal changes nothing', async () => {
    const { id } = await submitApp(developer);
    const read = async () =>
      (
        await developer.ok<{ app: any }>(`query($id: ID!) { app(id: $id) { id name shortDescription iconUrl appUrl category pricing pricePoints webhookUrl status revision } }`, {
          id,
        })
      ).app;
    let before = await read();
    let accepted = 0;
    await fc.assert(
      fc.asyncProperty(updateInput, async (input) => {
        const answer = await post(UPDATE_APP, { id, input });
        const app = expectCodedAnswer(answer, 'updateApp');
        const after = await read();
        if (app) {
          expectObeysContract(after);
          expect(after).toMatchObject({ name: app.name, shortDescription: app.shortDescription, iconUrl: app.iconUrl, appUrl: app.appUrl, pricePoints: app.pricePoints });
          accepted += 1;
        } else {
          expect(after, 'a refused update changed the app').toEqual(before);
        }
        before = after;
      }),
      { ...RUNS, numRuns: Math.ceil((RUNS.numRuns * 3) / 4) },
    );
    expect(accepted).toBeGreaterThan(0);
  }, 120_000);
});

describe('the store and the review queue under arbitrary arguments', () => {
  const STORE =
    'query($category: String, $search: String, $first: Int, $after: String) { storeApps(category: $category, search: $search, first: $first, after: $after) { edges { cursor node { id } } pageInfo { hasNextPage endCursor } } }';
  const QUEUE = 'query($first: Int, $after: String) { reviewQueue(first: $first, after: $after) { edges { cursor node { id } } pageInfo { hasNextPage endCursor } } }';
  const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const time = fc.oneof(
    fc.date().map((d) => (Number.isNaN(d.getTime()) ? 'Invalid Date' : d.toISOString())),
    fc.constantFrom('0000-01-01T00:00:00.000Z', '2025-02-30T00:00:00.000Z', '2025-01-01', 'now', ''),
    anyText,
  );
  const after = fc.oneof(
    fc.constant(undefined),
    fc.tuple(time, fc.oneof(fc.constant('app_01JZ8X4T6B3YQ2N5M7K9P0RSTV'), anyText)).map(base64url),
    fc.jsonValue().map(base64url),
    anyText,
  );
  const first = fc.oneof(fc.constant(undefined), fc.integer({ min: -5, max: 120 }), fc.integer(), fc.constantFrom(1.5, '3', null));

  it('answers any listing arguments with data or a coded error', async () => {
    const reviewer = await plaza.signIn(REVIEWER_EMAIL);
    await fc.assert(
      fc.asyncProperty(fc.record({ category: fc.oneof(category, fc.constant(undefined)), search: fc.oneof(anyText, fc.constant(undefined)), first, after }), async (args) => {
        for (const answer of [await post(STORE, args), await post(QUEUE, { first: args.first, after: args.after }, reviewer)]) {
          expect(answer.status, JSON.stringify(answer.body)).toBeLessThan(500);
          if (answer.body.errors?.length) expect(KNOWN_CODES, JSON.stringify(answer.body.errors[0])).toContain(answer.body.errors[0]?.extensions?.code);
        }
      }),
      { ...RUNS, numRuns: Math.ceil(RUNS.numRuns / 2) },
    );
  }, 120_000);

  it.each([
    ['storeApps with a forged cursor time (was a 500: PostgreSQL could not cast it)', STORE, { after: base64url(['not-a-time', 'app_x']) }, 'after'],
    ['reviewQueue with a forged cursor time', QUEUE, { after: base64url(['0000-01-01T00:00:00.000Z', 'app_x']) }, 'after'],
    ['storeApps with a six-digit cursor year (found by the property)', STORE, { after: base64url(['+010000-01-01T00:00:00.000Z', 'app_x']) }, 'after'],
    ['storeApps with a NUL in the search (was a 500)', STORE, { search: 'a\u0000b' }, 'search'],
  ])('refuses %s, naming the argument', async (_case, query, variables, field) => {
    const answer = await post(query, variables, await plaza.signIn(REVIEWER_EMAIL));
    expect(answer.body.errors?.[0]?.extensions).toEqual({ code: 'BAD_USER_INPUT', field });
  });
});

describe('submission regressions found by the properties', () => {
  it('accepts the factory input (sanity check of the checks)', async () => {
    const answer = await post(SUBMIT_APP, { input: validAppInput() });
    expectObeysContract(expectCodedAnswer(answer, 'submitApp'));
  });

  it.each([
    ['a NUL in the app URL (was a 500: PostgreSQL cannot store NUL)', { appUrl: 'https:xn--bcher-kva.example/x\u0000' }, 'appUrl'],
    ['a NUL in the name', { name: 'Quiz\u0000Time' }, 'name'],
    ['a control character in the short description', { shortDescription: 'Daily\u0007trivia' }, 'shortDescription'],
    ['a lone surrogate in the name (was stored as U+FFFD, not as sent)', { name: 'Quiz \uD83D' }, 'name'],
    ['a lone surrogate in the icon URL', { iconUrl: 'https://apps.example.com/\uDE00.png' }, 'iconUrl'],
  ])('refuses %s, naming the field', async (_case, override, field) => {
    const before = await myAppIds();
    const answer = await post(SUBMIT_APP, { input: validAppInput(override) });
    expect(answer.body.errors?.[0]?.extensions).toEqual({ code: 'BAD_USER_INPUT', field });
    expect(await myAppIds()).toEqual(before);
  });

  it('refuses an explicit null pricing in updateApp, naming the field (was a 500: NOT NULL violation)', async () => {
    const { id } = await submitApp(developer);
    const answer = await post(UPDATE_APP, { id, input: { pricing: null } });
    expect(answer.body.errors?.[0]?.extensions).toEqual({ code: 'BAD_USER_INPUT', field: 'pricing' });
  });
});
