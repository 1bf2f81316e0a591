import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { startTestPlaza, type TestPlaza } from './helpers/plaza.js';
import type { GraphQLTestClient } from './helpers/graphql-client.js';
import { submitApp } from './helpers/factories.js';
import { WebhookReceiver } from './helpers/webhook-receiver.js';
import { isFinal, waitForDelivery } from './helpers/webhooks.js';
import { roundRobin } from './helpers/lists.js';
import { WebhookEventType } from '../src/modules/webhooks/webhook.types.js';

// Issue 7: any arguments to webhookDeliveries get data or a coded error, never a 500 or a hang.

const LIST = `query($filter: WebhookDeliveryFilter, $first: Int, $after: String) {
  webhookDeliveries(filter: $filter, first: $first, after: $after) { edges { cursor node { id appId event status purchaseId createdAt } } pageInfo { hasNextPage endCursor } } }`;
const KNOWN_CODES = ['BAD_USER_INPUT', 'UNAUTHENTICATED', 'FORBIDDEN', 'NOT_FOUND', 'CONFLICT', 'RATE_LIMITED'];
const REQUEST_TIMEOUT_MS = 10_000;
const STATUSES = ['PENDING', 'RETRYING', 'SUCCEEDED', 'FAILED'];
const EVENTS = Object.keys(WebhookEventType);
const PURCHASE_IDS = ['APP-1735689600000-AAAAAA', 'APP-1735689600000-BBBBBB', 'APP-1735776000000-CCCCCC'];
/**
 * FC_NUM_RUNS=5000 for a long hunt. Every run is made (no time limit interrupts a property and passes it
 * on fewer cases); a hung request fails its case after REQUEST_TIMEOUT_MS, and the test timeout bounds each.
 */
const NUM_RUNS = Number(process.env.FC_NUM_RUNS) || 200;

interface Delivery {
  id: string;
  appId: string;
  event: string;
  status: string;
  purchaseId: string;
  createdAt: string;
}
interface Answer {
  status: number;
  body: {
    data?: { webhookDeliveries: { edges: { cursor: string; node: Delivery }[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } } } | null;
    errors?: { message: string; extensions?: { code?: string; field?: string } }[];
  };
}

let plaza: TestPlaza;
let owner: GraphQLTestClient;
let apps: { ok: string; failing: string; rival: string };
/** The owner's deliveries, newest first, as seeded. */
let seeded: Delivery[];
/** Cursors the API gave out, and the delivery each one points after. */
const realCursors = new Map<string, string>();

async function post(variables: Record<string, unknown>): Promise<Answer> {
  const response = await fetch(`${plaza.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${owner.token}` },
    body: JSON.stringify({ query: LIST, variables }),
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  return { status: response.status, body: JSON.parse(await response.text()) };
}

/** Records an event at a chosen time through the marketplace's transactional entry point. */
async function seed(appId: string, type: WebhookEventType, at: Date, purchaseId: string) {
  const delivery = await plaza.services.db.transaction((manager) =>
    plaza.services.webhookEvents.recordEvent(manager, { type, appId, userId: 'usr_buyer_1', purchaseId, amountVnd: 50_000, developerShareVnd: 40_000, at }),
  );
  return delivery!.id;
}

beforeAll(async () => {
  // One retry an hour away: a failing delivery stays RETRYING for the whole file.
  // Hundreds of requests a second from one address: the per-address rate limit is not what is under test.
  plaza = await startTestPlaza({ WEBHOOK_RETRY_SCHEDULE: '1h', RATE_LIMIT_PER_ADDRESS: '1000000' });
  owner = await plaza.signIn('owner@filters.test');
  const rival = await plaza.signIn('rival@filters.test');
  const ok = await WebhookReceiver.start(() => ({ status: 200 }));
  const failing = await WebhookReceiver.start(() => ({ status: 500 }));
  apps = {
    ok: (await submitApp(owner, { webhookUrl: ok.url() })).id,
    failing: (await submitApp(owner, { webhookUrl: failing.url() })).id,
    rival: (await submitApp(rival, { webhookUrl: ok.url() })).id,
  };
  // Spread over two weeks of 2025, two sharing one millisecond, so time filters have edges to hit.
  const start = Date.UTC(2025, 0, 1);
  const ids: string[] = [];
  for (let i = 0; i < 24; i += 1) {
    const slot = i === 5 ? 4 : i;
    const at = new Date(start + slot * 13 * 60 * 60 * 1000 + slot * 7);
    const app = i % 3 === 2 ? apps.failing : apps.ok;
    ids.push(await seed(app, roundRobin(Object.values(WebhookEventType), i), at, roundRobin(PURCHASE_IDS, i)));
  }
  for (let i = 0; i < 4; i += 1) await seed(apps.rival, WebhookEventType.APP_PURCHASED, new Date(start + i * 20 * 60 * 60 * 1000), roundRobin(PURCHASE_IDS, 0));
  for (const id of ids) await waitForDelivery(owner, id, (d) => isFinal(d) || d.status === 'RETRYING');
  const answer = await post({ first: 100 });
  seeded = answer.body.data!.webhookDeliveries.edges.map((e) => e.node);
  expect(seeded.map((d) => d.id).sort()).toEqual([...ids].sort());
}, 60_000);

// --- Reference -----------------------------------------------------------------------------------

const given = (v: unknown) => v !== undefined && v !== null && v !== '';

/** What the owner should see for a filter the server accepted: the rule, written plainly. */
function expected(filter: Record<string, unknown> | null | undefined, afterId: string | undefined): Delivery[] {
  const f = filter ?? {};
  return seeded.filter(
    (d) =>
      (!given(f.appId) || d.appId === f.appId) &&
      (!given(f.status) || d.status === f.status) &&
      (!given(f.event) || d.event === f.event) &&
      (!given(f.purchaseId) || d.purchaseId === f.purchaseId) &&
      (!given(f.since) || Date.parse(d.createdAt) >= new Date(f.since as string).getTime()) &&
      (!given(f.until) || Date.parse(d.createdAt) <= new Date(f.until as string).getTime()) &&
      (afterId === undefined || d.id < afterId),
  );
}

function expectCodedError(answer: Answer) {
  const error = answer.body.errors?.[0];
  expect(error, JSON.stringify(answer.body)).toBeDefined();
  expect(KNOWN_CODES, JSON.stringify(error)).toContain(error!.extensions?.code);
}

// --- Arbitraries ---------------------------------------------------------------------------------

const junk = fc.oneof(fc.string({ unit: 'binary', maxLength: 40 }), fc.constantFrom('', '\u0000', '\uD800', 'x'.repeat(10_000)));
const wrongType = fc.oneof(fc.integer(), fc.double(), fc.boolean(), fc.constant([]), fc.constant({}));
const enumLike = (values: string[]) =>
  fc.oneof(
    { arbitrary: fc.constantFrom(...values), weight: 5 },
    { arbitrary: fc.constantFrom(...values.map((v) => v.toLowerCase()), 'LOST', ''), weight: 1 },
    { arbitrary: junk, weight: 1 },
    { arbitrary: wrongType, weight: 1 },
  );
const dateLike = fc.oneof(
  { arbitrary: fc.integer({ min: Date.UTC(2024, 11, 30), max: Date.UTC(2025, 0, 20) }).map((ms) => new Date(ms).toISOString()), weight: 4 },
  { arbitrary: fc.constantFrom('seeded'), weight: 2 },
  { arbitrary: fc.date({ noInvalidDate: true }).map((d) => d.toISOString()), weight: 1 },
  {
    arbitrary: fc.constantFrom(
      '0000-01-01T00:00:00Z',
      '1969-12-31T23:59:59.999Z',
      '1970-01-01T00:00:00Z',
      '9999-12-31T23:59:59.999Z',
      '+275760-09-13T00:00:00Z',
      '-000001-01-01T00:00:00Z',
      '2025-01-01',
      '2025-01-01T00:00:00',
      '2025-01-01T00:00:00+25:00',
      '2025-02-30T00:00:00Z',
      '2025-01-01T23:59:60Z',
      '2025-01-01T00:00:00.123456789Z',
      '2025-01-01T00:00:00+05:30',
      '1735689600000',
      'yesterday',
      '',
    ),
    weight: 2,
  },
  { arbitrary: fc.oneof(fc.integer(), fc.constant(1735689600000)), weight: 1 },
  { arbitrary: junk, weight: 1 },
);
const filter = fc.oneof(
  { arbitrary: fc.constant(undefined), weight: 1 },
  { arbitrary: fc.constant(null), weight: 1 },
  {
    arbitrary: fc.record(
      {
        appId: fc.oneof(fc.constantFrom('ok', 'failing', 'rival'), junk, fc.constant(null)),
        status: fc.oneof(enumLike(STATUSES), fc.constant(null)),
        event: fc.oneof(enumLike(EVENTS), fc.constant(null)),
        purchaseId: fc.oneof(fc.constantFrom(...PURCHASE_IDS), junk, fc.constant(null)),
        since: fc.oneof(dateLike, fc.constant(null)),
        until: fc.oneof(dateLike, fc.constant(null)),
      },
      { requiredKeys: [] },
    ),
    weight: 8,
  },
);
const first = fc.oneof(
  { arbitrary: fc.constant(undefined), weight: 2 },
  { arbitrary: fc.integer({ min: 1, max: 30 }), weight: 5 },
  { arbitrary: fc.constantFrom(0, -1, 100, 101, 2147483647, -2147483648, 2147483648, 1e21, 1.5, null), weight: 2 },
  { arbitrary: fc.integer(), weight: 1 },
  { arbitrary: fc.constantFrom('5', '', 'ten'), weight: 1 },
);
const base64url = (value: string) => Buffer.from(value).toString('base64url');
const after = fc.oneof(
  { arbitrary: fc.constant(undefined), weight: 3 },
  { arbitrary: fc.constant('real'), weight: 3 },
  { arbitrary: fc.json().map(base64url), weight: 1 },
  { arbitrary: junk.map((s) => base64url(JSON.stringify([s]))), weight: 2 },
  { arbitrary: fc.constantFrom('dlv_', 'dlv_ZZZZZZZZZZZZZZZZZZZZZZZZZZ', 'dlv_00000000000000000000000000', '\u0000', 'ZZZ').map((s) => base64url(JSON.stringify([s]))), weight: 1 },
  { arbitrary: fc.constantFrom(base64url('[1]'), base64url('["a","b"]'), base64url('null'), base64url('{}'), '!!!', '====', 'not-a-cursor'), weight: 1 },
  { arbitrary: junk, weight: 1 },
  { arbitrary: wrongType, weight: 1 },
);

/** Turns the placeholders ('ok', 'real', 'seeded') into this run's ids, cursors and timestamps. */
function resolve(raw: { filter: any; first: unknown; after: unknown }, pick: number) {
  const filter = raw.filter && { ...raw.filter };
  if (filter?.appId in apps) filter.appId = apps[filter.appId as keyof typeof apps];
  for (const key of ['since', 'until'] as const) if (filter?.[key] === 'seeded') filter[key] = roundRobin(seeded, pick).createdAt;
  const cursors = [...realCursors.keys()];
  const after = raw.after === 'real' ? (cursors.length ? cursors[pick % cursors.length] : undefined) : raw.after;
  return { filter, first: raw.first, after };
}

describe('webhookDeliveries under arbitrary arguments', () => {
  it('answers with a coded error, or a page that honours the filter, the size and the order', async () => {
    let pages = 0;
    await fc.assert(
      fc.asyncProperty(fc.record({ filter, first, after }), fc.nat(), async (raw, pick) => {
        const variables = resolve(raw, pick);
        const answer = await post(variables);
        expect(answer.status, JSON.stringify(answer.body)).toBeLessThan(500);
        const page = answer.body.data?.webhookDeliveries;
        if (!page) return expectCodedError(answer);
        expect(answer.body.errors ?? []).toEqual([]);
        pages += 1;

        const limit = variables.first ?? 20;
        expect(Number.isInteger(limit) && (limit as number) >= 1 && (limit as number) <= 100, `accepted first=${String(variables.first)}`).toBe(true);
        const ids = page.edges.map((e) => e.node.id);
        expect(ids.length).toBeLessThanOrEqual(limit as number);
        // Only the owner's deliveries, newest first, no repeats.
        for (const id of ids) expect(seeded.map((d) => d.id)).toContain(id);
        expect(ids).toEqual([...ids].sort().reverse());
        expect(new Set(ids).size).toBe(ids.length);
        const times = page.edges.map((e) => Date.parse(e.node.createdAt));
        expect(times).toEqual([...times].sort((a, b) => b - a));
        page.edges.forEach((e) => realCursors.set(e.cursor, e.node.id));

        if (variables.after === undefined || variables.after === null || realCursors.has(variables.after as string)) {
          // A known starting point: the page is exactly the next `limit` matching deliveries.
          const rest = expected(variables.filter, realCursors.get(variables.after as string));
          expect(ids).toEqual(rest.slice(0, limit as number).map((d) => d.id));
          expect(page.pageInfo.hasNextPage).toBe(rest.length > (limit as number));
        } else {
          // A forged cursor: still a subset of what the filter allows.
          const allowed = new Set(expected(variables.filter, undefined).map((d) => d.id));
          for (const id of ids) expect(allowed.has(id), `${id} does not match ${JSON.stringify(variables.filter)}`).toBe(true);
        }
        expect(page.pageInfo.endCursor).toBe(page.edges.at(-1)?.cursor ?? null);
      }),
      { numRuns: NUM_RUNS },
    );
    expect(pages).toBeGreaterThan(0);
  }, 120_000);

  it('visits every matching delivery exactly once when paging with the cursors it gives out', async () => {
    const validFilter = fc.record(
      {
        appId: fc.constantFrom('ok', 'failing', 'rival'),
        status: fc.constantFrom(...STATUSES),
        event: fc.constantFrom(...EVENTS),
        purchaseId: fc.constantFrom(...PURCHASE_IDS),
        since: fc.constantFrom('seeded', '2025-01-03T00:00:00.000Z'),
        until: fc.constantFrom('seeded', '2025-01-10T00:00:00.000Z'),
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(validFilter, fc.integer({ min: 1, max: 9 }), fc.nat(), async (rawFilter, size, pick) => {
        const { filter } = resolve({ filter: rawFilter, first: size, after: undefined }, pick);
        if (filter.since && filter.until && filter.since > filter.until) [filter.since, filter.until] = [filter.until, filter.since];
        const visited: string[] = [];
        let after: string | null = null;
        for (let pages = 0; pages <= seeded.length; pages += 1) {
          const answer = await post({ filter, first: size, after });
          const page = answer.body.data?.webhookDeliveries;
          expect(page, JSON.stringify(answer.body)).toBeTruthy();
          visited.push(...page!.edges.map((e) => e.node.id));
          if (!page!.pageInfo.hasNextPage) break;
          after = page!.pageInfo.endCursor;
        }
        expect(visited).toEqual(expected(filter, undefined).map((d) => d.id));
      }),
      { numRuns: Math.ceil(NUM_RUNS / 4) },
    );
  }, 120_000);
});

describe('delivery filter regressions found by the properties', () => {
  it.each([
    ['a NUL purchase id (was a 500: PostgreSQL cannot compare with NUL)', { filter: { purchaseId: '\u0000' } }, 'purchaseId'],
    ['a NUL app id (reached SQL for admins)', { filter: { appId: 'app_\u0000' } }, 'appId'],
    ['a cursor holding a NUL', { after: base64url(JSON.stringify(['\u0000'])) }, 'after'],
    ['a since before 1970 (was a 500: no ULID carries that time)', { filter: { since: '1969-12-31T23:59:59.999Z' } }, 'since'],
    ['an until in year 0', { filter: { until: '0000-01-01T00:00:00Z' } }, 'until'],
  ])('refuses %s, naming the argument', async (_case, variables, field) => {
    const answer = await post(variables);
    expect(answer.body.errors?.[0]?.extensions).toEqual({ code: 'BAD_USER_INPUT', field });
  });

  it('pages through all 24 seeded deliveries two at a time', async () => {
    const visited: string[] = [];
    for (let after: string | null = null, more = true; more;) {
      const page: any = (await post({ first: 2, after })).body.data!.webhookDeliveries;
      visited.push(...page.edges.map((e: any) => e.node.id));
      [after, more] = [page.pageInfo.endCursor, page.pageInfo.hasNextPage];
    }
    expect(visited).toEqual(seeded.map((d) => d.id));
  });
});
