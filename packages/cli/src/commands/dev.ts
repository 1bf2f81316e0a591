import { PlazaApi, postJson, UNREACHABLE } from '../api.js';
import { loadSettings, storeToken, type Settings } from '../config.js';
import { CliError } from '../errors.js';
import { colours, printJson } from '../output.js';

/** What `plaza dev` sets up when not told otherwise: the README's "Develop your app locally" uses these. */
export const DEV_DEFAULTS = {
  email: 'dev@example.com',
  buyer: 'buyer@example.com',
  appName: 'My dev app',
  url: 'http://localhost:3000/webhooks/plaza',
} as const;
/** The dev app's price, and the balance the buyer is topped up to: enough for many `plaza dev buy`s. */
const PRICE_POINTS = 10;
const BUYER_POINTS = 1000;

const APP_FIELDS = 'id name status webhookUrl pricePoints';
const MY_APPS = `query { myApps { ${APP_FIELDS} } }`;
const SUBMIT = `mutation($input: SubmitAppInput!) { submitApp(input: $input) { ${APP_FIELDS} } }`;
const SET_URL = `mutation($id: ID!, $input: UpdateAppInput!) { updateApp(id: $id, input: $input) { ${APP_FIELDS} } }`;
const APP = `query($id: ID!) { app(id: $id) { ${APP_FIELDS} revision } }`;
const DECIDE = `mutation($input: ReviewDecisionInput!) { decideReview(input: $input) { outcome } }`;
const BALANCE = `query { myPointsBalance { points } }`;
const CREDIT = `mutation($userId: ID!, $points: Int!) { creditPoints(userId: $userId, points: $points, reason: "plaza dev: development buyer") { points } }`;
const PURCHASE = `mutation($appId: ID!) { purchaseApp(appId: $appId) { purchaseId appId amountVnd } }`;
const PURCHASES = `query($appId: ID!) { myPurchases(appId: $appId, first: 1) { edges { node { purchaseId } } } }`;
const REFUND = `mutation($purchaseId: String!) { refundPurchase(purchaseId: $purchaseId, reason: "plaza dev buy: bought again") { purchaseId } }`;

interface Person {
  token: string;
  user: { id: string; email: string; roles: string[] };
}
interface DevApp {
  id: string;
  name: string;
  status: string;
  webhookUrl: string | null;
  pricePoints: number | null;
}

/** POST /auth/dev/sign-in: the development provider, refused (404) on a Plaza where it is off. */
async function devSignIn(settings: Settings, email: string): Promise<Person> {
  let answer: { status: number; text: string };
  try {
    answer = await postJson(`${settings.url}/auth/dev/sign-in`, JSON.stringify({ email }), {});
  } catch {
    throw new CliError(UNREACHABLE(settings.url));
  }
  if (answer.status === 404)
    throw new CliError(
      `plaza dev works only with a Plaza in development mode, and ${settings.url} has development sign-in turned off (AUTH_DEV_SIGN_IN; off when NODE_ENV=production): use plaza login and the portal there`,
    );
  let body: Partial<Person> & { message?: string; error?: { message?: string } };
  try {
    body = JSON.parse(answer.text) as typeof body;
  } catch {
    throw new CliError(`Plaza at ${settings.url} answered HTTP ${answer.status} to the development sign-in without JSON: is PLAZA_URL right?`);
  }
  if (answer.status !== 200 || !body.token || !body.user)
    throw new CliError(`Development sign-in as ${email} was refused: ${body.error?.message ?? body.message ?? `HTTP ${answer.status}`}`);
  return body as Person;
}

/** The first address of a comma-separated list such as PLATFORM_ADMIN_EMAILS. */
const firstOf = (list: string | undefined) => list?.split(',')[0]?.trim() || undefined;

/**
 * The development admin (who credits points) and reviewer (who approves): the same variables the server reads,
 * so one `export PLATFORM_ADMIN_EMAILS=...` serves both `pnpm start` and `plaza dev`.
 */
async function staff(settings: Settings, options: { admin?: string; reviewer?: string }, need: 'ADMIN' | 'REVIEWER'): Promise<Person> {
  const email =
    need === 'ADMIN'
      ? (options.admin ?? firstOf(process.env.PLATFORM_ADMIN_EMAILS))
      : (options.reviewer ?? firstOf(process.env.PLATFORM_REVIEWER_EMAILS) ?? options.admin ?? firstOf(process.env.PLATFORM_ADMIN_EMAILS));
  const variable = need === 'ADMIN' ? 'PLATFORM_ADMIN_EMAILS' : 'PLATFORM_REVIEWER_EMAILS (or PLATFORM_ADMIN_EMAILS)';
  const flag = need === 'ADMIN' ? '--admin' : '--reviewer';
  if (!email)
    throw new CliError(
      `plaza dev needs a development ${need.toLowerCase()}: set ${variable} as Plaza was started with (e.g. export PLATFORM_ADMIN_EMAILS=admin@example.com before pnpm start), or pass ${flag} <email>`,
    );
  const person = await devSignIn(settings, email);
  const roles = person.user.roles;
  if (!roles.includes('ADMIN') && !(need === 'REVIEWER' && roles.includes('REVIEWER')))
    throw new CliError(`${email} is not a${need === 'ADMIN' ? 'n admin' : ' reviewer'} on ${settings.url}: start Plaza with ${variable.split(' ')[0]}=${email}`);
  return person;
}

/** Tops the buyer up to BUYER_POINTS when they have less than one purchase's worth left. */
async function fundBuyer(api: PlazaApi, settings: Settings, options: { admin?: string; reviewer?: string }, buyer: Person, price: number): Promise<number> {
  const { myPointsBalance } = await api.request<{ myPointsBalance: { points: number } }>(BALANCE, {}, buyer.token);
  if (myPointsBalance.points >= price) return myPointsBalance.points;
  const admin = await staff(settings, options, 'ADMIN');
  const { creditPoints } = await api.request<{ creditPoints: { points: number } }>(CREDIT, { userId: buyer.user.id, points: BUYER_POINTS - myPointsBalance.points }, admin.token);
  return creditPoints.points;
}

export interface DevOptions {
  email?: string;
  buyer?: string;
  admin?: string;
  reviewer?: string;
  name?: string;
  url?: string;
  json?: boolean;
}

/**
 * `plaza dev`: what a first real event needs, in one step, on a Plaza in development mode: the developer signed in
 * (and stored as this Plaza's login), an app of theirs (reused by name) whose webhook URL is the local receiver,
 * approved by the development reviewer, and a development buyer with points. Each step says what it did.
 */
export async function dev(options: DevOptions): Promise<void> {
  const settings = await loadSettings();
  const api = new PlazaApi(settings);
  const say = (line: string) => void (options.json || process.stderr.write(`${colours.green('✓')} ${line}\n`));
  const url = options.url ?? DEV_DEFAULTS.url;
  const name = options.name ?? DEV_DEFAULTS.appName;

  const developer = await devSignIn(settings, options.email ?? DEV_DEFAULTS.email);
  // Stored as plaza login would, so plaza listen and the other commands run as the developer next.
  await storeToken(settings.configPath, settings.url, developer.token);
  say(`Signed in to ${settings.url} as ${developer.user.email} (development sign-in; stored as this Plaza's login in ${settings.configPath})`);
  if (settings.tokenSource === 'PLAZA_TOKEN') process.stderr.write(colours.yellow('Note: PLAZA_TOKEN is set, and it wins over the stored login while it is.\n'));

  const { myApps } = await api.request<{ myApps: DevApp[] }>(MY_APPS, {}, developer.token);
  let app = myApps.find((a) => a.name === name);
  if (!app) {
    app = (
      await api.request<{ submitApp: DevApp }>(
        SUBMIT,
        {
          input: {
            name,
            shortDescription: 'A development app made by plaza dev',
            iconUrl: 'https://example.com/icon.png',
            appUrl: 'https://example.com/app',
            category: 'games',
            pricing: 'PAID',
            pricePoints: PRICE_POINTS,
            webhookUrl: url,
          },
        },
        developer.token,
      )
    ).submitApp;
    say(`Created ${app.name} (${app.id}), ${PRICE_POINTS} points, webhook URL ${url}`);
  } else if (app.webhookUrl !== url) {
    app = (await api.request<{ updateApp: DevApp }>(SET_URL, { id: app.id, input: { webhookUrl: url } }, developer.token)).updateApp;
    say(`Reused ${app.name} (${app.id}); webhook URL set to ${url}`);
  } else {
    say(`Reused ${app.name} (${app.id}), webhook URL ${url}`);
  }

  if (app.status !== 'APPROVED') {
    const reviewer = await staff(settings, options, 'REVIEWER');
    const { app: current } = await api.request<{ app: DevApp & { revision: number } }>(APP, { id: app.id }, reviewer.token);
    await api.request(DECIDE, { input: { appId: app.id, outcome: 'APPROVED', revision: current.revision } }, reviewer.token);
    app = { ...app, status: 'APPROVED' };
    say(`Approved ${app.id} as the development reviewer ${reviewer.user.email}: it is in the store`);
  } else {
    say(`${app.id} is already approved`);
  }

  const buyer = await devSignIn(settings, options.buyer ?? DEV_DEFAULTS.buyer);
  const points = await fundBuyer(api, settings, options, buyer, app.pricePoints ?? PRICE_POINTS);
  say(`The development buyer ${buyer.user.email} has ${points} points`);

  if (options.json) return printJson({ url: settings.url, developer: developer.user, app, buyer: { ...buyer.user, points } });
  process.stdout.write(`${app.id}\n`);
  process.stderr.write(
    `Next: ${colours.cyan(`pnpm plaza listen --app ${app.id} --forward-to ${url}`)} in one terminal, then ${colours.cyan(`pnpm plaza dev buy --app ${app.id}`)} for a real app.purchased\n`,
  );
}

/**
 * `plaza dev buy --app`: the development buyer buys the app, so a real app.purchased is recorded and sent. A buyer
 * owns a bought app once: when they already do, that purchase is refunded first (an app.refunded goes out too).
 */
export async function devBuy(options: { app: string; buyer?: string; admin?: string; reviewer?: string; json?: boolean }): Promise<void> {
  const settings = await loadSettings();
  const api = new PlazaApi(settings);
  const buyer = await devSignIn(settings, options.buyer ?? DEV_DEFAULTS.buyer);
  const { app } = await api.request<{ app: DevApp | null }>(APP, { id: options.app }, buyer.token);
  if (!app) throw new CliError(`Unknown app ${options.app}, or not approved yet: plaza dev sets one up and prints its id`);
  await fundBuyer(api, settings, options, buyer, app.pricePoints ?? PRICE_POINTS);
  const buy = () => api.request<{ purchaseApp: { purchaseId: string; appId: string; amountVnd: number } }>(PURCHASE, { appId: app.id }, buyer.token);
  let purchase: { purchaseId: string; appId: string; amountVnd: number };
  try {
    ({ purchaseApp: purchase } = await buy());
  } catch (error) {
    if (!(error instanceof CliError) || !/ALREADY_OWNED|already own/i.test(error.message)) throw error;
    const { myPurchases } = await api.request<{ myPurchases: { edges: { node: { purchaseId: string } }[] } }>(PURCHASES, { appId: app.id }, buyer.token);
    const previous = myPurchases.edges[0]?.node.purchaseId;
    if (!previous) throw error;
    const admin = await staff(settings, options, 'ADMIN');
    await api.request(REFUND, { purchaseId: previous }, admin.token);
    if (!options.json) process.stderr.write(colours.dim(`${buyer.user.email} already owned ${app.id}: refunded ${previous} first (an app.refunded goes out too)\n`));
    ({ purchaseApp: purchase } = await buy());
  }
  if (options.json) return printJson({ ...purchase, buyer: buyer.user.email });
  process.stdout.write(`${purchase.purchaseId}\n`);
  process.stderr.write(
    `${buyer.user.email} bought ${app.name} (${app.id}): a real app.purchased for ${purchase.purchaseId} is on its way (plaza deliveries --purchase ${purchase.purchaseId})\n`,
  );
}
