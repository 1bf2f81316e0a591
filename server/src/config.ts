import { randomBytes, createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root; `.data/` and the built web app are found relative to it. */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** A configuration value that is missing or malformed; main() prints its one-line message and exits. */
export class ConfigError extends Error {
  constructor(readonly variable: string, expected: string, got?: string) {
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

export interface Config {
  production: boolean;
  /** HTTP and WebSocket port. @default 4000 */
  port: number;
  /** Public origin of this platform, used for cookies, OIDC redirects and session token `iss`. @default http://localhost:PORT */
  platformOrigin: string;
  /** PostgreSQL connection string; undefined starts an embedded PostgreSQL under dataDir. */
  databaseUrl: string | undefined;
  /** PostgreSQL connections per process (API, worker). @default 20, at most 500 */
  databasePoolSize: number;
  /** Where embedded PostgreSQL and the development encryption key live. @default <repo>/.data */
  dataDir: string;
  /** Delays in ms before attempts 2..6, each counted from the end of the previous attempt. @default 5s,30s,5m,30m,2h */
  webhookRetryScheduleMs: number[];
  /** One delivery attempt's limit in ms. @default 10s, at most 30s */
  webhookTimeoutMs: number;
  /** How long a worker's claim on a delivery lasts; a dead worker's deliveries are taken over after it. @default 45s, at most 60s */
  webhookClaimLeaseMs: number;
  /**
   * On SIGTERM, how long a worker lets its webhook attempts in flight finish; past it, it hands their
   * deliveries back so another worker sends them at once instead of after the claim lease. @default 15s, at most 60s
   */
  shutdownGraceMs: number;
  /** `pnpm worker` only: serve /healthz, /readyz and /metrics on this port. @default unset (no HTTP) */
  workerHttpPort: number | undefined;
  /** When set, GET /metrics (API and worker ports) needs `Authorization: Bearer <token>`. */
  metricsToken: string | undefined;
  /** Allow loopback/private destinations and plain http. @default false in production, true otherwise */
  webhookAllowPrivateUrls: boolean;
  /** VND value of one platform point. @default 1000 */
  pointValueVnd: number;
  /** Enables POST /auth/dev/sign-in. @default true outside production */
  authDevSignIn: boolean;
  reviewerEmails: Set<string>;
  adminEmails: Set<string>;
  /** The key that encrypts new client secrets, then older keys that may still decrypt. */
  encryptionKeys: EncryptionKey[];
  /** Agenda's job store. @default postgres */
  jobsBackend: 'postgres' | 'mongodb';
  mongodbUrl: string | undefined;
  oidc: OidcConfig | undefined;
  /** SMTP connection URL for decision e-mails; unset means in-portal notifications only. */
  smtpUrl: string | undefined;
  /** Sender address of e-mails. @default "Plaza <no-reply@localhost>" */
  smtpFrom: string;
  /** Lifetime of a sign-in session in ms. @default 12h */
  sessionTtlMs: number;
  /** Lifetime of an integrator API token when its creator does not choose one, in days. @default 90 */
  apiTokenDefaultTtlDays: number;
  /** Run the delivery worker inside the API process. @default true (pnpm worker runs it alone) */
  runWorker: boolean;
  /** Directory of the built SPA. @default <repo>/web/dist */
  webDistDir: string;
  /**
   * Requests a minute from one address (anything not made with an API token), as a bucket of that size.
   * @default 6000 (100/s on average, a minute's worth at once): room for people behind one NAT and for
   * automated clients, a wall for floods
   */
  rateLimitPerAddress: number;
  /** Requests a minute made with one API token, as a bucket of that size. @default 3000 (50/s on average): an integrator polling Webhook Logs ten times a second stays far below it */
  rateLimitPerApiToken: number;
  /** Attempts of finished deliveries older than this are deleted (the delivery itself stays), in ms. @default 90d */
  webhookAttemptRetentionMs: number;
  /** Behind a load balancer: take the client address from X-Forwarded-For (Express's `trust proxy`). @default false */
  trustProxy: boolean;
  /**
   * Apps one account may have; submitApp past it answers CONFLICT and stores nothing. `myApps` has no
   * paging, so this also bounds what one `myApps` returns and what the query cost estimate counts for it.
   * @default 100, at most 10000
   */
  maxAppsPerDeveloper: number;
}

type Env = Record<string, string | undefined>;

const DURATION_UNITS_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Parses "250ms", "5s", "30m", "2h", "1d". Returns undefined when the text is not such a duration. */
export function parseDuration(text: string): number | undefined {
  const match = /^(\d+)(ms|s|m|h|d)$/.exec(text.trim());
  if (!match) return undefined;
  return Number(match[1]) * DURATION_UNITS_MS[match[2]];
}

function readDuration(env: Env, name: string, fallback: string): number {
  const raw = env[name] ?? fallback;
  const ms = parseDuration(raw);
  if (ms === undefined || ms <= 0) throw new ConfigError(name, 'must be a positive duration such as 500ms, 10s, 5m or 2h', raw);
  return ms;
}

function readBoolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw new ConfigError(name, 'must be true or false', raw);
}

function readPositiveInt(env: Env, name: string, fallback: number, max = Number.MAX_SAFE_INTEGER): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) <= 0 || Number(raw) > max) {
    throw new ConfigError(name, `must be a whole number between 1 and ${max}`, raw);
  }
  return Number(raw);
}

function readEmailList(env: Env, name: string): Set<string> {
  const emails = (env[name] ?? '').split(',').map((e) => e.trim().toLowerCase()).filter(Boolean);
  for (const email of emails) {
    if (!/^[^@\s]+@[^@\s]+$/.test(email)) throw new ConfigError(name, 'must be a comma-separated list of e-mail addresses', email);
  }
  return new Set(emails);
}

function readOrigin(env: Env, name: string, fallback: string): string {
  const raw = env[name] ?? fallback;
  try {
    const url = new URL(raw);
    if ((url.protocol === 'http:' || url.protocol === 'https:') && url.origin === raw.replace(/\/$/, '')) return url.origin;
  } catch {
    /* reported below */
  }
  throw new ConfigError(name, 'must be an origin such as https://plaza.example (scheme, host and optional port, no path)', raw);
}

/** Decodes a 32-byte key written as base64 (44 characters) or hex (64 characters). */
export function decodeEncryptionKey(raw: string, variable: string): EncryptionKey {
  const text = raw.trim();
  const key = /^[0-9a-fA-F]{64}$/.test(text) ? Buffer.from(text, 'hex') : Buffer.from(text, 'base64');
  if (key.length !== 32 || (!/^[0-9a-fA-F]{64}$/.test(text) && key.toString('base64') !== text)) {
    throw new ConfigError(variable, 'must be a 32-byte key written as base64 (44 characters) or hex (64 characters)');
  }
  return { id: createHash('sha256').update(key).digest('hex').slice(0, 12), key };
}

function readEncryptionKeys(env: Env, production: boolean, dataDir: string): EncryptionKey[] {
  const primaryRaw = env.SECRET_ENCRYPTION_KEY;
  let primary: EncryptionKey;
  if (primaryRaw) {
    primary = decodeEncryptionKey(primaryRaw, 'SECRET_ENCRYPTION_KEY');
  } else if (production) {
    throw new ConfigError('SECRET_ENCRYPTION_KEY', 'is required in production: a 32-byte key as base64 or hex (openssl rand -base64 32)');
  } else {
    primary = decodeEncryptionKey(loadOrCreateDevelopmentKey(dataDir), 'SECRET_ENCRYPTION_KEY');
  }
  const previous = (env.SECRET_ENCRYPTION_KEYS_PREVIOUS ?? '')
    .split(',')
    .map((k) => k.trim())
    .filter(Boolean)
    .map((k) => decodeEncryptionKey(k, 'SECRET_ENCRYPTION_KEYS_PREVIOUS'));
  return [primary, ...previous.filter((k) => k.id !== primary.id)];
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

function readOidc(env: Env, production: boolean): OidcConfig | undefined {
  const issuer = env.OIDC_ISSUER;
  if (!issuer) return undefined;
  for (const name of ['OIDC_CLIENT_ID', 'OIDC_CLIENT_SECRET'] as const) {
    if (!env[name]) throw new ConfigError(name, 'is required when OIDC_ISSUER is set');
  }
  let url: URL;
  try {
    url = new URL(issuer);
  } catch {
    throw new ConfigError('OIDC_ISSUER', 'must be the issuer URL of an OpenID provider', issuer);
  }
  if (url.protocol !== 'https:' && production) throw new ConfigError('OIDC_ISSUER', 'must be https in production', issuer);
  return {
    issuer,
    clientId: env.OIDC_CLIENT_ID!,
    clientSecret: env.OIDC_CLIENT_SECRET!,
    allowInsecureIssuer: url.protocol === 'http:',
  };
}

/** Reads and validates the whole configuration; throws ConfigError naming the first bad variable. */
export function loadConfig(env: Env = process.env): Config {
  const production = env.NODE_ENV === 'production';
  const port = readPositiveInt(env, 'PORT', 4000, 65535);
  const dataDir = path.resolve(env.DATA_DIR ?? path.join(REPO_ROOT, '.data'));

  const databaseUrl = env.DATABASE_URL || undefined;
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL', 'must be a postgres:// connection string (or unset for the embedded database)', databaseUrl.replace(/:[^:@/]*@/, ':***@'));
  }

  const scheduleRaw = env.WEBHOOK_RETRY_SCHEDULE ?? '5s,30s,5m,30m,2h';
  const webhookRetryScheduleMs = scheduleRaw.split(',').map((part) => parseDuration(part) ?? NaN);
  if (scheduleRaw.trim() === '' || webhookRetryScheduleMs.some((ms) => !Number.isFinite(ms))) {
    throw new ConfigError('WEBHOOK_RETRY_SCHEDULE', 'must be a comma-separated list of delays such as 5s,30s,5m,30m,2h', scheduleRaw);
  }

  // An attempt must end well inside its claim, and a claim inside the minute in which a dead worker's work is taken over.
  const webhookTimeoutMs = readDuration(env, 'WEBHOOK_TIMEOUT', '10s');
  if (webhookTimeoutMs > 30_000) throw new ConfigError('WEBHOOK_TIMEOUT', 'must be at most 30s', env.WEBHOOK_TIMEOUT);
  const webhookClaimLeaseMs = readDuration(env, 'WEBHOOK_CLAIM_LEASE', '45s');
  const databasePoolSize = readPositiveInt(env, 'DATABASE_POOL_SIZE', 20, 500);
  if (webhookClaimLeaseMs > 60_000 || webhookClaimLeaseMs < webhookTimeoutMs + 1000) {
    throw new ConfigError('WEBHOOK_CLAIM_LEASE', 'must be at most 60s and at least a second longer than WEBHOOK_TIMEOUT', env.WEBHOOK_CLAIM_LEASE);
  }

  const shutdownGraceMs = readDuration(env, 'SHUTDOWN_GRACE', '15s');
  if (shutdownGraceMs > 60_000) throw new ConfigError('SHUTDOWN_GRACE', 'must be at most 60s', env.SHUTDOWN_GRACE);

  const jobsBackend = env.JOBS_BACKEND ?? 'postgres';
  if (jobsBackend !== 'postgres' && jobsBackend !== 'mongodb') throw new ConfigError('JOBS_BACKEND', 'must be postgres or mongodb', jobsBackend);
  const mongodbUrl = env.MONGODB_URL || undefined;
  if (jobsBackend === 'mongodb' && !mongodbUrl) throw new ConfigError('MONGODB_URL', 'is required when JOBS_BACKEND=mongodb (a mongodb:// connection string)');
  if (mongodbUrl && !/^mongodb(\+srv)?:\/\//.test(mongodbUrl)) throw new ConfigError('MONGODB_URL', 'must be a mongodb:// connection string');

  const metricsToken = env.METRICS_TOKEN || undefined;
  if (metricsToken !== undefined && (metricsToken.length < 16 || /\s/.test(metricsToken))) {
    throw new ConfigError('METRICS_TOKEN', 'must be at least 16 characters without spaces (openssl rand -hex 16)');
  }

  const smtpUrl = env.SMTP_URL || undefined;
  if (smtpUrl && !/^smtps?:\/\//.test(smtpUrl)) throw new ConfigError('SMTP_URL', 'must be an smtp:// or smtps:// URL');

  return {
    production,
    port,
    platformOrigin: readOrigin(env, 'PLATFORM_ORIGIN', `http://localhost:${port}`),
    databaseUrl,
    dataDir,
    webhookRetryScheduleMs,
    webhookTimeoutMs,
    webhookClaimLeaseMs,
    shutdownGraceMs,
    databasePoolSize,
    webhookAllowPrivateUrls: readBoolean(env, 'WEBHOOK_ALLOW_PRIVATE_URLS', !production),
    pointValueVnd: readPositiveInt(env, 'POINT_VALUE_VND', 1000, 1_000_000_000),
    authDevSignIn: readBoolean(env, 'AUTH_DEV_SIGN_IN', !production),
    reviewerEmails: readEmailList(env, 'PLATFORM_REVIEWER_EMAILS'),
    adminEmails: readEmailList(env, 'PLATFORM_ADMIN_EMAILS'),
    encryptionKeys: readEncryptionKeys(env, production, dataDir),
    jobsBackend,
    mongodbUrl,
    oidc: readOidc(env, production),
    smtpUrl,
    smtpFrom: env.SMTP_FROM ?? 'Plaza <no-reply@localhost>',
    sessionTtlMs: readDuration(env, 'SESSION_TTL', '12h'),
    apiTokenDefaultTtlDays: readPositiveInt(env, 'API_TOKEN_DEFAULT_TTL_DAYS', 90, 3650),
    runWorker: readBoolean(env, 'RUN_WORKER', true),
    webDistDir: path.resolve(env.WEB_DIST_DIR ?? path.join(REPO_ROOT, 'web/dist')),
    rateLimitPerAddress: readPositiveInt(env, 'RATE_LIMIT_PER_ADDRESS', 6000),
    rateLimitPerApiToken: readPositiveInt(env, 'RATE_LIMIT_PER_API_TOKEN', 3000),
    trustProxy: readBoolean(env, 'TRUST_PROXY', false),
    maxAppsPerDeveloper: readPositiveInt(env, 'MAX_APPS_PER_DEVELOPER', 100, 10_000),
    workerHttpPort: env.WORKER_HTTP_PORT ? readPositiveInt(env, 'WORKER_HTTP_PORT', 0, 65535) : undefined,
    metricsToken,
    webhookAttemptRetentionMs: readDuration(env, 'WEBHOOK_ATTEMPT_RETENTION', '90d'),
  };
}
