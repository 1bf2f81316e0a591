import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, parseDuration, REPO_ROOT, SETTINGS, type SettingName } from '../src/config.js';

const KEY = Buffer.alloc(32, 1).toString('base64');
const base = { SECRET_ENCRYPTION_KEY: KEY, DATA_DIR: '/tmp/plaza-config-test' };

function failure(env: Record<string, string>): ConfigError {
  try {
    loadConfig({ ...base, ...env });
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error(`expected ${JSON.stringify(env)} to be refused`);
}

describe('configuration', () => {
  it('has the contract defaults', () => {
    const config = loadConfig(base);
    expect(config).toMatchObject({
      port: 4000,
      databaseUrl: undefined,
      webhookRetryScheduleMs: [5_000, 30_000, 300_000, 1_800_000, 7_200_000],
      webhookTimeoutMs: 10_000,
      shutdownGraceMs: 15_000,
      webhookAllowPrivateUrls: true, // development
      pointValueVnd: 1000,
      authDevSignIn: true,
      jobsBackend: 'postgres',
      platformOrigin: 'http://localhost:4000',
      // Generous enough for a person behind a NAT or an automated client, a wall for floods.
      rateLimitPerAddress: 6000,
      rateLimitPerApiToken: 3000,
      rateLimitPerAccount: 6000,
      websocketsPerAccount: 20,
      webhookTestEventsPerMinute: 10,
      trustProxy: false,
      workerHttpPort: undefined,
      metricsToken: undefined,
      webhookAttemptRetentionMs: 90 * 86_400_000,
    });
  });

  it('is strict by default in production and needs the encryption key there', () => {
    expect(failure({ NODE_ENV: 'production', SECRET_ENCRYPTION_KEY: '' }).variable).toBe('SECRET_ENCRYPTION_KEY');
    const production = loadConfig({ ...base, NODE_ENV: 'production' });
    expect(production).toMatchObject({ webhookAllowPrivateUrls: false, authDevSignIn: false });
  });

  it.each([
    ['PORT', 'eighty', /PORT must be a whole number between 1 and 65535/],
    ['PORT', '70000', /PORT/],
    ['DATABASE_URL', 'mysql://x', /DATABASE_URL must be a postgres:\/\//],
    ['WEBHOOK_RETRY_SCHEDULE', '5s,soon', /WEBHOOK_RETRY_SCHEDULE must be a comma-separated list of delays/],
    ['WEBHOOK_TIMEOUT', '10', /WEBHOOK_TIMEOUT must be a positive duration/],
    ['SHUTDOWN_GRACE', '2m', /SHUTDOWN_GRACE must be at most 60s/],
    ['WEBHOOK_ALLOW_PRIVATE_URLS', 'yes', /WEBHOOK_ALLOW_PRIVATE_URLS must be true or false/],
    ['POINT_VALUE_VND', '1.5', /POINT_VALUE_VND must be a whole number/],
    ['AUTH_DEV_SIGN_IN', 'maybe', /AUTH_DEV_SIGN_IN must be true or false/],
    ['PLATFORM_REVIEWER_EMAILS', 'alice', /PLATFORM_REVIEWER_EMAILS must be a comma-separated list of e-mail addresses/],
    ['SECRET_ENCRYPTION_KEY', 'too-short', /SECRET_ENCRYPTION_KEY must be a 32-byte key/],
    ['JOBS_BACKEND', 'redis', /JOBS_BACKEND must be postgres or mongodb/],
    ['JOBS_BACKEND', 'mongodb', /MONGODB_URL is required when JOBS_BACKEND=mongodb/],
    ['OIDC_ISSUER', 'https://accounts.example.com', /OIDC_CLIENT_ID is required when OIDC_ISSUER is set/],
    ['METRICS_TOKEN', 'short', /METRICS_TOKEN must be at least 16 characters without spaces/],
    ['LOG_LEVEL', 'loud', /LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent \(got "loud"\)/],
    ['WEBHOOK_CLAIM_LEASE', '10s', /WEBHOOK_CLAIM_LEASE must be at most 60s and at least a second longer than WEBHOOK_TIMEOUT/],
    ['WEBHOOK_BODY_RETENTION', '30d', /WEBHOOK_BODY_RETENTION must be forever or at least WEBHOOK_ATTEMPT_RETENTION/],
  ])('refuses %s=%s with a message naming it', (variable, value, message) => {
    const error = failure({ [variable]: value });
    expect(error.message).toMatch(message);
    expect(error.message).not.toContain('\n');
  });

  it('never echoes a metrics token in its message', () => {
    expect(failure({ METRICS_TOKEN: 'hunter2 hunter2 hunter2' }).message).not.toContain('hunter2');
  });

  it('never echoes a database password in its message', () => {
    expect(failure({ DATABASE_URL: 'mysql://user:hunter2@db/x' }).message).not.toContain('hunter2');
  });

  it('parses durations with units', () => {
    expect([parseDuration('250ms'), parseDuration('5s'), parseDuration('5m'), parseDuration('2h'), parseDuration('1d'), parseDuration('5')]).toEqual([
      250,
      5000,
      300_000,
      7_200_000,
      86_400_000,
      undefined,
    ]);
  });

  it('stops the real server at boot with one clear line', () => {
    const main = path.join(REPO_ROOT, 'server/dist/main.js');
    expect(existsSync(main), 'build first: pnpm build').toBe(true);
    const result = spawnSync(process.execPath, [main], { env: { ...process.env, ...base, WEBHOOK_TIMEOUT: 'forever' }, encoding: 'utf8', timeout: 20_000 });
    expect(result.status).toBe(1);
    expect(result.stderr.trim()).toBe('Plaza cannot start: WEBHOOK_TIMEOUT must be a positive duration such as 500ms, 10s, 5m or 2h (got "forever")');
  });

  it('stops the real server on a bad LOG_LEVEL with the same one line (the logger is made before the configuration is read)', () => {
    const main = path.join(REPO_ROOT, 'server/dist/main.js');
    const result = spawnSync(process.execPath, [main], { env: { ...process.env, ...base, LOG_LEVEL: 'loud' }, encoding: 'utf8', timeout: 20_000 });
    expect(result.status).toBe(1);
    expect(result.stderr.trim()).toBe('Plaza cannot start: LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent (got "loud")');
  });

  it('has one declaration per variable, each naming its own field of the configuration', () => {
    const fields = Object.values(SETTINGS).flatMap((declared: { doc: string; field?: string }) => declared.field ?? []);
    expect(new Set(fields).size).toBe(fields.length);
    const config = loadConfig({ ...base, OIDC_ISSUER: 'https://accounts.example.com', OIDC_CLIENT_ID: 'id', OIDC_CLIENT_SECRET: 'secret' });
    expect(Object.keys(config).sort()).toEqual([...fields, 'encryptionKeys', 'oidc'].sort());
    expect(config.logLevel).toBe('info');
    expect(loadConfig({ ...base, NODE_ENV: 'test' }).logLevel).toBe('warn');
  });
});

describe('the configuration table in README.md', () => {
  // Read elsewhere, not declared in SETTINGS (none: LOG_LEVEL is declared too, and the logger reads it through it).
  const READ_ELSEWHERE = new Set<string>([]);
  // Declared (tests and packaging point it elsewhere) but not yet in the table.
  const NOT_IN_TABLE = new Set<string>([]);

  function tableRows(): { names: string[]; defaults: string }[] {
    const readme = readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('## Configuration'));
    const table = section.slice(0, section.indexOf('\n## '));
    return table
      .split('\n')
      .filter((line) => line.startsWith('| `'))
      .map((line) => {
        const [names = '', defaults = ''] = line.split(' | ');
        return { names: [...names.matchAll(/`([A-Z0-9_]+)`/g)].flatMap((m) => m[1] ?? []), defaults: defaults.trim() };
      });
  }

  /** How the table should state a declared default: its own words where declared, else the value, else "unset". */
  function stated(name: SettingName): string {
    const declared: { doc: string; default?: unknown; defaultText?: string } = SETTINGS[name];
    if (declared.defaultText !== undefined) return declared.defaultText;
    return typeof declared.default === 'string' ? `\`${declared.default}\`` : 'unset';
  }

  it('names every declared variable, and only those', () => {
    const documented = tableRows().flatMap((row) => row.names);
    expect(documented.length).toBeGreaterThan(20);
    expect(documented.filter((name) => !(name in SETTINGS) && !READ_ELSEWHERE.has(name))).toEqual([]);
    expect(Object.keys(SETTINGS).filter((name) => !documented.includes(name) && !NOT_IN_TABLE.has(name))).toEqual([]);
  });

  it('states the declared defaults', () => {
    for (const { names, defaults } of tableRows()) {
      const declared = names.filter((name): name is SettingName => name in SETTINGS);
      // A row of several variables gives one default for all, or one each, comma-separated.
      const parts = declared.length > 1 && defaults.split(', ').length === declared.length ? defaults.split(', ') : declared.map(() => defaults);
      declared.forEach((name, i) => expect(parts[i], name).toBe(stated(name)));
    }
  });
});
