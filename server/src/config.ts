import { randomBytes, createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';

/** The repository root; `.data/` and the built web app are found relative to it. */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** A configuration value that is missing or malformed; main() prints its one-line message and exits. */
export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    expected: string,
    got?: string,
  ) {
    super(`${variable} ${expected}${got === undefined ? '' : ` (got "${got}")`}`);
  }
}

export interface EncryptionKey {
  /** Short id stored beside each ciphertext, so a rotated-out key can still decrypt old rows. */
  id: string;
  key: Buffer;
}

export interface OidcConfig {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Allows an http:// issuer; only for local providers in development and tests. */
  allowInsecureIssuer: boolean;
}

type Env = Record<string, string | undefined>;

const DURATION_UNITS_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Parses "250ms", "5s", "30m", "2h", "1d". Returns undefined when the text is not such a duration. */
export function parseDuration(text: string): number | undefined {
  const [, amount, unit] = /^(\d+)(ms|s|m|h|d)$/.exec(text.trim()) ?? [];
  const unitMs = unit === undefined ? undefined : DURATION_UNITS_MS[unit];
  if (amount === undefined || unitMs === undefined) return undefined;
  return Number(amount) * unitMs;
}

/** Decodes a 32-byte key written as base64 (44 characters) or hex (64 characters); undefined when it is not one. */
function keyFromText(raw: string): EncryptionKey | undefined {
  const text = raw.trim();
  const hex = /^[0-9a-fA-F]{64}$/.test(text);
  const key = hex ? Buffer.from(text, 'hex') : Buffer.from(text, 'base64');
  if (key.length !== 32 || (!hex && key.toString('base64') !== text)) return undefined;
  return { id: createHash('sha256').update(key).digest('hex').slice(0, 12), key };
}

const KEY_EXPECTS = 'must be a 32-byte key written as base64 (44 characters) or hex (64 characters)';

/** Decodes a 32-byte key written as base64 (44 characters) or hex (64 characters). */
export function decodeEncryptionKey(raw: string, variable: string): EncryptionKey {
  const key = keyFromText(raw);
  if (!key) throw new ConfigError(variable, KEY_EXPECTS);
  return key;
}

// The kinds of value a variable holds. Each message completes "<VARIABLE> ..." in the one-line boot error.

/** A whole number from 1 to `max`. */
const wholeNumber = (max = Number.MAX_SAFE_INTEGER) => {
  const expects = `must be a whole number between 1 and ${max}`;
  return z
    .string()
    .regex(/^\d+$/, expects)
    .transform(Number)
    .refine((n) => n >= 1 && n <= max, expects);
};

/** A positive duration ("500ms", "10s", "5m", "2h", "1d"), in milliseconds, at most `max` when given. */
const duration = (max?: string) => {
  const ms = z.string().transform((raw, ctx) => {
    const value = parseDuration(raw);
    if (value !== undefined && value > 0) return value;
    ctx.addIssue({ code: 'custom', message: 'must be a positive duration such as 500ms, 10s, 5m or 2h' });
    return z.NEVER;
  });
  return max === undefined ? ms : ms.refine((value) => value <= parseDuration(max)!, `must be at most ${max}`);
};

/** Comma-separated durations, in milliseconds (0 allowed: an immediate retry). */
const durationList = z
  .string()
  .refine((raw) => raw.trim() !== '' && raw.split(',').every((part) => parseDuration(part) !== undefined), 'must be a comma-separated list of delays such as 5s,30s,5m,30m,2h')
  .transform((raw) => raw.split(',').map((part) => parseDuration(part)!));

const flag = z.enum(['true', '1', 'false', '0'], { error: 'must be true or false' }).transform((raw) => raw === 'true' || raw === '1');

/** Comma-separated e-mail addresses, compared in lower case; the error names the first that is not one. */
const emailList = z
  .string()
  .transform((raw) =>
    raw
      .split(',')
      .map((email) => email.trim().toLowerCase())
      .filter(Boolean),
  )
  .pipe(z.array(z.string().regex(/^[^@\s]+@[^@\s]+$/, 'must be a comma-separated list of e-mail addresses')))
  .transform((emails) => new Set(emails));

/** An http(s) origin: scheme, host and optional port; a trailing slash is tolerated. */
const origin = z.string().transform((raw, ctx) => {
  try {
    const url = new URL(raw);
    if ((url.protocol === 'http:' || url.protocol === 'https:') && url.origin === raw.replace(/\/$/, '')) return url.origin;
  } catch {
    /* reported below */
  }
  ctx.addIssue({ code: 'custom', message: 'must be an origin such as https://plaza.example (scheme, host and optional port, no path)' });
  return z.NEVER;
});

const encryptionKey = z.string().transform((raw, ctx) => {
  const key = keyFromText(raw);
  if (key) return key;
  ctx.addIssue({ code: 'custom', message: KEY_EXPECTS });
  return z.NEVER;
});
const encryptionKeyList = z
  .string()
  .transform((raw) =>
    raw
      .split(',')
      .map((key) => key.trim())
      .filter(Boolean),
  )
  .pipe(z.array(encryptionKey));

/** An http(s) URL, such as a collector's (http://otel-collector:4318). */
const httpUrl = z.string().refine((raw) => URL.canParse(raw) && /^https?:$/.test(new URL(raw).protocol), 'must be an http:// or https:// URL');

/** A URL as a refused value may show it: a password in it is masked. */
const redactUrl = (raw: string) => raw.replace(/:[^:@/]*@/, ':***@');

const directory = z.string().transform((dir) => path.resolve(dir));

/** What a default may depend on. */
interface Mode {
  production: boolean;
  /** NODE_ENV=test, as vitest sets it: the tests' logs stay quiet. */
  test: boolean;
  port: number;
}

interface Setting<T> {
  /**
   * The field of Config that holds its value, typed by `value` (and `| undefined` when there is no default).
   * None where several variables make one field (SECRET_ENCRYPTION_KEY*, OIDC_*): loadConfig reads those.
   */
  field?: string;
  /** What it is for; README's configuration table says the same to people. */
  doc: string;
  /** The value when the variable is unset, written as in the environment; a function when it depends on the mode or the port. */
  default?: string | ((mode: Mode) => string);
  /** How README's table states the default, where that is not simply the `default` above (or "unset"). */
  defaultText?: string;
  /** An empty value counts as unset. Otherwise it is checked like any value (WEBHOOK_TIMEOUT= is an error, not 10s). */
  blankIsUnset?: true;
  /** What "(got ...)" shows of a refused value: nothing for secrets, a redacted form where it holds one. */
  echo?: 'never' | ((raw: string) => string);
  /** Parses and checks the text: its kind, unit and range. */
  value: z.ZodType<T>;
}

// `const` keeps each field's name as a literal, so Config's field names come from these declarations.
const setting = <const S extends Setting<unknown>>(declaration: S) => declaration;

/** pino's levels, in its order. */
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** Every variable Plaza reads, with its default, unit, range and meaning. */
export const SETTINGS = {
  NODE_ENV: setting({
    field: 'production',
    doc: '`production` turns on the production defaults',
    default: '',
    defaultText: 'unset',
    value: z.string().transform((raw) => raw === 'production'),
  }),
  LOG_LEVEL: setting({
    field: 'logLevel',
    doc: 'pino log level; `debug` adds one line per webhook attempt (delivery id, app id, attempt number, outcome)',
    default: ({ test }) => (test ? 'warn' : 'info'),
    defaultText: '`info` (`warn` when `NODE_ENV=test`)',
    value: z.enum(LOG_LEVELS, { error: `must be one of ${LOG_LEVELS.join(', ')}` }),
  }),
  PORT: setting({ field: 'port', doc: 'HTTP and WebSocket port', default: '4000', blankIsUnset: true, value: wholeNumber(65535) }),
  PLATFORM_ORIGIN: setting({
    field: 'platformOrigin',
    doc: 'public origin: cookies, OIDC redirect, session token issuer',
    default: ({ port }) => `http://localhost:${port}`,
    defaultText: '`http://localhost:$PORT`',
    value: origin,
  }),
  DATA_DIR: setting({
    field: 'dataDir',
    doc: 'embedded PostgreSQL data and the development key',
    default: path.join(REPO_ROOT, '.data'),
    defaultText: '`.data/`',
    value: directory,
  }),
  DATABASE_URL: setting({
    field: 'databaseUrl',
    doc: 'PostgreSQL connection string; unset starts an embedded PostgreSQL under DATA_DIR',
    defaultText: 'unset: embedded PostgreSQL in `.data/`',
    blankIsUnset: true,
    echo: (raw) => raw.replace(/:[^:@/]*@/, ':***@'),
    value: z.string().regex(/^postgres(ql)?:\/\//, 'must be a postgres:// connection string (or unset for the embedded database)'),
  }),
  DATABASE_POOL_SIZE: setting({ field: 'databasePoolSize', doc: 'PostgreSQL connections per process (API or worker)', default: '20', blankIsUnset: true, value: wholeNumber(500) }),
  // A migration's backfill shares the disk with the purchases and deliveries of the processes still serving, the previous release's too.
  MIGRATION_BACKFILL_DUTY_PERCENT: setting({
    field: 'migrationBackfillDutyPercent',
    doc: "the share of its time a migration's backfill (rows filled in batches while the previous release runs) spends working: after each batch it rests so that the batch's time is this percent of the whole, leaving the disk to new events; 100 never rests",
    default: '50',
    blankIsUnset: true,
    value: wholeNumber(100),
  }),
  WEBHOOK_RETRY_SCHEDULE: setting({
    field: 'webhookRetryScheduleMs',
    doc: 'delays before attempts 2..6, each from the end of the previous attempt',
    default: '5s,30s,5m,30m,2h',
    value: durationList,
  }),
  // An attempt must end well inside its claim, and a claim inside the minute in which a dead worker's work is taken over.
  WEBHOOK_TIMEOUT: setting({ field: 'webhookTimeoutMs', doc: "one attempt's limit", default: '10s', value: duration('30s') }),
  WEBHOOK_CLAIM_LEASE: setting({
    field: 'webhookClaimLeaseMs',
    doc: "how long a worker's claim on a delivery lasts (at most 60s, and at least a second longer than WEBHOOK_TIMEOUT); a dead worker's deliveries are taken over after it",
    default: '45s',
    value: duration(),
  }),
  SHUTDOWN_GRACE: setting({
    field: 'shutdownGraceMs',
    doc: 'on SIGTERM, how long a worker lets webhook attempts in flight finish; past it, their deliveries are handed back to other workers at once',
    default: '15s',
    value: duration('60s'),
  }),
  WORKER_HTTP_PORT: setting({
    field: 'workerHttpPort',
    doc: '`pnpm worker` only: serve /healthz, /readyz and /metrics on this port',
    blankIsUnset: true,
    value: wholeNumber(65535),
  }),
  METRICS_TOKEN: setting({
    field: 'metricsToken',
    doc: 'when set, /metrics answers only `Authorization: Bearer <token>`',
    blankIsUnset: true,
    echo: 'never',
    value: z.string().regex(/^\S{16,}$/, 'must be at least 16 characters without spaces (openssl rand -hex 16)'),
  }),
  WEBHOOK_ALLOW_PRIVATE_URLS: setting({
    field: 'webhookAllowPrivateUrls',
    doc: 'allow loopback/private destinations and plain http',
    default: ({ production }) => String(!production),
    defaultText: '`false` in production, `true` otherwise',
    blankIsUnset: true,
    value: flag,
  }),
  POINT_VALUE_VND: setting({ field: 'pointValueVnd', doc: 'VND value of one platform point', default: '1000', blankIsUnset: true, value: wholeNumber(1_000_000_000) }),
  AUTH_DEV_SIGN_IN: setting({
    field: 'authDevSignIn',
    doc: 'enables POST /auth/dev/sign-in',
    default: ({ production }) => String(!production),
    defaultText: '`true` outside production',
    blankIsUnset: true,
    value: flag,
  }),
  PLATFORM_REVIEWER_EMAILS: setting({ field: 'reviewerEmails', doc: 'comma-separated reviewer grants', default: '', defaultText: 'empty', value: emailList }),
  PLATFORM_ADMIN_EMAILS: setting({ field: 'adminEmails', doc: 'comma-separated admin grants (admins also review)', default: '', defaultText: 'empty', value: emailList }),
  SECRET_ENCRYPTION_KEY: setting({
    doc: '32 bytes as base64 or hex (openssl rand -base64 32); encrypts client secrets',
    defaultText: 'generated into `.data/secret-encryption-key` in development; required in production',
    blankIsUnset: true,
    echo: 'never',
    value: encryptionKey,
  }),
  SECRET_ENCRYPTION_KEYS_PREVIOUS: setting({
    doc: 'comma-separated older keys that may still decrypt (key rotation)',
    default: '',
    defaultText: 'empty',
    echo: 'never',
    value: encryptionKeyList,
  }),
  JOBS_BACKEND: setting({ field: 'jobsBackend', doc: "Agenda's job store", default: 'postgres', value: z.enum(['postgres', 'mongodb'], { error: 'must be postgres or mongodb' }) }),
  MONGODB_URL: setting({
    field: 'mongodbUrl',
    doc: 'the job store when JOBS_BACKEND=mongodb',
    blankIsUnset: true,
    echo: 'never',
    value: z.string().regex(/^mongodb(\+srv)?:\/\//, 'must be a mongodb:// connection string'),
  }),
  OIDC_ISSUER: setting({
    doc: "production sign-in (the platform's Google-based account); https in production",
    blankIsUnset: true,
    value: z.string().refine((raw) => URL.canParse(raw), 'must be the issuer URL of an OpenID provider'),
  }),
  OIDC_CLIENT_ID: setting({ doc: 'the OIDC client, required with OIDC_ISSUER', blankIsUnset: true, value: z.string() }),
  OIDC_CLIENT_SECRET: setting({ doc: "the OIDC client's secret, required with OIDC_ISSUER", blankIsUnset: true, echo: 'never', value: z.string() }),
  SMTP_URL: setting({
    field: 'smtpUrl',
    doc: 'e-mail review decisions to developers (smtp://user:pass@host:587); unset means in-portal notifications only',
    blankIsUnset: true,
    echo: 'never',
    value: z.string().regex(/^smtps?:\/\//, 'must be an smtp:// or smtps:// URL'),
  }),
  SMTP_FROM: setting({ field: 'smtpFrom', doc: 'sender address of e-mails', default: 'Plaza <no-reply@localhost>', value: z.string() }),
  SESSION_TTL: setting({ field: 'sessionTtlMs', doc: 'lifetime of a sign-in', default: '12h', value: duration() }),
  // At most what a creator may choose (createApiToken's expiresInDays is 1..365): tokens expire.
  API_TOKEN_DEFAULT_TTL_DAYS: setting({
    field: 'apiTokenDefaultTtlDays',
    doc: 'lifetime of an API token when its creator does not choose, in days',
    default: '90',
    blankIsUnset: true,
    value: wholeNumber(365),
  }),
  RUN_WORKER: setting({
    field: 'runWorker',
    doc: 'deliver webhooks inside the API process; false when running `pnpm worker` processes',
    default: 'true',
    blankIsUnset: true,
    value: flag,
  }),
  WEB_DIST_DIR: setting({ field: 'webDistDir', doc: 'directory of the built SPA', default: path.join(REPO_ROOT, 'web/dist'), defaultText: '`web/dist/`', value: directory }),
  // A minute's worth at once, refilled continuously: room for people behind one NAT and for automated clients, a wall for floods.
  RATE_LIMIT_PER_ADDRESS: setting({
    field: 'rateLimitPerAddress',
    doc: 'requests a minute from one address (everything not made with an API token)',
    default: '6000',
    blankIsUnset: true,
    value: wholeNumber(),
  }),
  // 50/s on average: an integrator polling Webhook Logs ten times a second stays far below it.
  RATE_LIMIT_PER_API_TOKEN: setting({ field: 'rateLimitPerApiToken', doc: 'requests a minute made with one API token', default: '3000', blankIsUnset: true, value: wholeNumber() }),
  // Every API token's request also draws on its account's budget: up to 50 live tokens buy no more than one account's worth.
  RATE_LIMIT_PER_ACCOUNT: setting({
    field: 'rateLimitPerAccount',
    doc: 'requests a minute from one account across all its API tokens',
    default: '6000',
    blankIsUnset: true,
    value: wholeNumber(),
  }),
  // 20 sockets of at most 100 subscriptions each: 2,000 live subscriptions (about 10 MB) per account per process.
  WEBSOCKETS_PER_ACCOUNT: setting({
    field: 'websocketsPerAccount',
    doc: 'WebSockets with live subscriptions one account may hold on one API process, across all its sessions and API tokens; a subscription from one more is refused with RATE_LIMITED (each WebSocket holds at most 100 subscriptions)',
    default: '20',
    blankIsUnset: true,
    value: wholeNumber(100_000),
  }),
  // Each test event is one request to the developer's server, sent once and never retried.
  WEBHOOK_TEST_EVENTS_PER_MINUTE: setting({
    field: 'webhookTestEventsPerMinute',
    doc: 'test events (sendTestWebhook) one app may be sent in any minute, across every API process; the next is refused with RATE_LIMITED',
    default: '10',
    blankIsUnset: true,
    value: wholeNumber(),
  }),
  WEBHOOK_ENDPOINTS_PER_APP: setting({
    field: 'webhookEndpointsPerApp',
    doc: 'webhook endpoints one app may have (createWebhookEndpoint refuses the next with CONFLICT, reason TOO_MANY_ENDPOINTS); each business event makes one delivery per endpoint',
    default: '10',
    blankIsUnset: true,
    value: wholeNumber(),
  }),
  TRUST_PROXY: setting({
    field: 'trustProxy',
    doc: "behind a load balancer: take the client's address from X-Forwarded-For (Express's `trust proxy`)",
    default: 'false',
    blankIsUnset: true,
    value: flag,
  }),
  // As Svix: five days of failure with no success in between (and a delivery that gave up) disables an app's webhook.
  WEBHOOK_DISABLE_AFTER: setting({
    field: 'webhookDisableAfterMs',
    doc: "sustained failure after which an app's webhook is disabled (its events are kept, not sent, until its owner enables it)",
    default: '5d',
    value: duration(),
  }),
  WEBHOOK_ATTEMPT_RETENTION: setting({
    field: 'webhookAttemptRetentionMs',
    doc: 'attempts of finished deliveries older than this are dropped, a week at a time; the deliveries stay',
    default: '90d',
    value: duration(),
  }),
  // At least WEBHOOK_ATTEMPT_RETENTION (checked in loadConfig): while an attempt is shown, so is the body it signed and sent.
  WEBHOOK_BODY_RETENTION: setting({
    field: 'webhookBodyRetentionMs',
    doc: 'bodies (payloads) of finished deliveries older than this are deleted, a whole time partition at a time; the deliveries stay, with payload "" and payloadKept false, and can no longer be redelivered or recovered. `forever` keeps every body; otherwise at least WEBHOOK_ATTEMPT_RETENTION',
    default: 'forever',
    value: z.union([z.literal('forever').transform(() => null), duration()], { error: 'must be forever or a positive duration such as 180d' }),
  }),
  // myApps has no paging, so this also bounds what one myApps returns and what the query cost estimate counts for it.
  MAX_APPS_PER_DEVELOPER: setting({
    field: 'maxAppsPerDeveloper',
    doc: 'apps one account may have; submitApp past it answers CONFLICT',
    default: '100',
    blankIsUnset: true,
    value: wholeNumber(10_000),
  }),
  // OpenTelemetry's own names, so a collector set up for other services is pointed at Plaza the same way.
  OTEL_EXPORTER_OTLP_ENDPOINT: setting({
    field: 'otlpEndpoint',
    doc: 'export traces over OTLP/HTTP (JSON) to this collector (`<url>/v1/traces`); unset exports nothing and loads no tracing SDK',
    blankIsUnset: true,
    echo: (raw) => redactUrl(raw),
    value: httpUrl,
  }),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: setting({
    field: 'otlpTracesEndpoint',
    doc: "traces' full OTLP/HTTP URL, used as it is (instead of OTEL_EXPORTER_OTLP_ENDPOINT's `/v1/traces`)",
    blankIsUnset: true,
    echo: (raw) => redactUrl(raw),
    value: httpUrl,
  }),
  OTEL_SDK_DISABLED: setting({
    field: 'otelSdkDisabled',
    doc: '`true` turns tracing off even with an endpoint set: nothing exported, no `traceparent` sent, no trace context stored',
    default: 'false',
    blankIsUnset: true,
    value: flag,
  }),
  OTEL_SERVICE_NAME: setting({
    field: 'otelServiceName',
    doc: "the traces' `service.name`",
    defaultText: '`plaza-api` (`pnpm start`), `plaza-worker` (`pnpm worker`)',
    blankIsUnset: true,
    value: z.string().regex(/^\S{1,100}$/, 'must be 1 to 100 characters without spaces'),
  }),
};

type Settings = typeof SETTINGS;
export type SettingName = keyof Settings;
type ValueOf<N extends SettingName> = z.output<Settings[N]['value']>;
/** A variable with a default always has a value; one without is undefined when unset. */
type Read<N extends SettingName> = Settings[N] extends { default: unknown } ? ValueOf<N> : ValueOf<N> | undefined;
type FieldOf<N extends SettingName> = Settings[N] extends { field: infer F extends string } ? F : never;

/**
 * The validated configuration: a field for each setting that declares one, of the type its declaration
 * parses to, and the two fields several variables make.
 */
export type Config = { [N in SettingName as FieldOf<N>]: Read<N> } & {
  /** The key that encrypts new client secrets, then older keys that may still decrypt. */
  encryptionKeys: [EncryptionKey, ...EncryptionKey[]]; // SECRET_ENCRYPTION_KEY, SECRET_ENCRYPTION_KEYS_PREVIOUS
  oidc: OidcConfig | undefined; // OIDC_ISSUER, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET
};

/** Reads one variable as declared: unset (or blank, where that means unset) takes the default; a bad value is a ConfigError. */
function read<N extends SettingName>(env: Env, name: N, mode: Mode): Read<N> {
  const declared: Setting<unknown> = SETTINGS[name];
  let raw = env[name];
  if (raw === '' && declared.blankIsUnset) raw = undefined;
  raw ??= typeof declared.default === 'function' ? declared.default(mode) : declared.default;
  if (raw === undefined) return undefined as Read<N>;
  const result = declared.value.safeParse(raw, { reportInput: true });
  // The declaration's own schema parsed it, so it is of that declaration's type.
  if (result.success) return result.data as Read<N>;
  const [issue] = result.error.issues;
  // A list names the item that is wrong; anything else shows the value as written.
  const got = typeof issue?.input === 'string' ? issue.input : raw;
  throw new ConfigError(name, issue?.message ?? 'is not valid', declared.echo === 'never' ? undefined : declared.echo ? declared.echo(got) : got);
}

/** NODE_ENV and PORT decide other defaults, so they are read first; their own defaults depend on nothing. */
function modeOf(env: Env): Mode {
  const unknown = { production: false, test: false, port: 0 };
  return { production: read(env, 'NODE_ENV', unknown), test: env.NODE_ENV === 'test', port: read(env, 'PORT', unknown) };
}

/**
 * A setting needed as modules load, before loadConfig runs (the logger's level): read as declared, or its
 * default while the value is bad, which loadConfig then refuses at start-up with its one-line message.
 */
export function settingAtLoad<N extends SettingName>(name: N, env: Env = process.env): Read<N> {
  try {
    return read(env, name, modeOf(env));
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    const mode = { production: env.NODE_ENV === 'production', test: env.NODE_ENV === 'test', port: 0 };
    return read({ ...env, [name]: undefined }, name, mode);
  }
}

/** Development only: a key generated once into .data/ so secrets survive restarts without setup. */
function loadOrCreateDevelopmentKey(dataDir: string): string {
  const file = path.join(dataDir, 'secret-encryption-key');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dataDir, { recursive: true, mode: 0o755 });
  const key = randomBytes(32).toString('base64');
  writeFileSync(file, `${key}\n`, { mode: 0o600 });
  return key;
}

/** Reads and validates the whole configuration; throws ConfigError naming the first bad variable. */
export function loadConfig(env: Env = process.env): Config {
  const mode = modeOf(env);
  const fields: Record<string, unknown> = {};
  for (const name of Object.keys(SETTINGS) as SettingName[]) {
    const field = (SETTINGS[name] as Setting<unknown>).field;
    if (field !== undefined) fields[field] = read(env, name, mode);
  }
  // Each field was read by the one declaration that names it, so it has that declaration's type.
  const config = fields as Omit<Config, 'encryptionKeys' | 'oidc'>;
  checkTogether(config, env);
  return { ...config, encryptionKeys: readEncryptionKeys(env, mode, config.dataDir), oidc: readOidc(env, mode) };
}

/** The rules between settings, each refused naming the variable that must change. */
function checkTogether(config: Omit<Config, 'encryptionKeys' | 'oidc'>, env: Env): void {
  // An attempt must end well inside its claim, and a claim inside the minute in which a dead worker's work is taken over.
  if (config.webhookClaimLeaseMs > 60_000 || config.webhookClaimLeaseMs < config.webhookTimeoutMs + 1000) {
    throw new ConfigError('WEBHOOK_CLAIM_LEASE', 'must be at most 60s and at least a second longer than WEBHOOK_TIMEOUT', env.WEBHOOK_CLAIM_LEASE);
  }
  if (config.jobsBackend === 'mongodb' && !config.mongodbUrl) throw new ConfigError('MONGODB_URL', 'is required when JOBS_BACKEND=mongodb (a mongodb:// connection string)');
  if (config.webhookBodyRetentionMs !== null && config.webhookBodyRetentionMs < config.webhookAttemptRetentionMs) {
    throw new ConfigError(
      'WEBHOOK_BODY_RETENTION',
      'must be forever or at least WEBHOOK_ATTEMPT_RETENTION (an attempt is never shown without the body it sent)',
      env.WEBHOOK_BODY_RETENTION,
    );
  }
}

function readEncryptionKeys(env: Env, mode: Mode, dataDir: string): [EncryptionKey, ...EncryptionKey[]] {
  let primary = read(env, 'SECRET_ENCRYPTION_KEY', mode);
  if (!primary) {
    if (mode.production) throw new ConfigError('SECRET_ENCRYPTION_KEY', 'is required in production: a 32-byte key as base64 or hex (openssl rand -base64 32)');
    primary = decodeEncryptionKey(loadOrCreateDevelopmentKey(dataDir), 'SECRET_ENCRYPTION_KEY');
  }
  const previous = read(env, 'SECRET_ENCRYPTION_KEYS_PREVIOUS', mode)!;
  return [primary, ...previous.filter((k) => k.id !== primary.id)];
}

function readOidc(env: Env, mode: Mode): OidcConfig | undefined {
  if (!env.OIDC_ISSUER) return undefined;
  const clientId = read(env, 'OIDC_CLIENT_ID', mode);
  if (!clientId) throw new ConfigError('OIDC_CLIENT_ID', 'is required when OIDC_ISSUER is set');
  const clientSecret = read(env, 'OIDC_CLIENT_SECRET', mode);
  if (!clientSecret) throw new ConfigError('OIDC_CLIENT_SECRET', 'is required when OIDC_ISSUER is set');
  const issuer = read(env, 'OIDC_ISSUER', mode)!;
  const { protocol } = new URL(issuer);
  if (protocol !== 'https:' && mode.production) throw new ConfigError('OIDC_ISSUER', 'must be https in production', issuer);
  return { issuer, clientId, clientSecret, allowInsecureIssuer: protocol === 'http:' };
}
