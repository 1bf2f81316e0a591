import { mkdtemp, readFile, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configPath, forgetToken, loadSettings, storeToken } from '../src/config.js';
import { parseEvent, parseStatus, parseTime } from '../src/parse.js';

describe('flags', () => {
  it('reads --since as an instant or a duration ago, and names the flag when it is neither', () => {
    const now = Date.parse('2026-11-23T12:00:00Z');
    expect(parseTime('--since', '2h', now).toISOString()).toBe('2026-11-23T10:00:00.000Z');
    expect(parseTime('--since', '7d', now).toISOString()).toBe('2026-11-16T12:00:00.000Z');
    expect(parseTime('--since', '2026-11-20T08:30:00Z', now).toISOString()).toBe('2026-11-20T08:30:00.000Z');
    expect(() => parseTime('--since', 'yesterday', now)).toThrow(/^--since must be a time/);
  });

  it('takes events by their wire name or enum name, and statuses in any case', () => {
    expect(parseEvent('--event', 'app.purchased')).toBe('APP_PURCHASED');
    expect(parseEvent('--event', 'APP_TEST')).toBe('APP_TEST');
    expect(() => parseEvent('--event', 'app.bought')).toThrow('--event must be one of app.purchased, app.installed, app.uninstalled, app.refunded, app.test, not "app.bought"');
    expect(parseStatus('--status', 'failed')).toBe('FAILED');
  });
});

describe('stored tokens', () => {
  it('keeps one token per Plaza URL in a file only its user may read; PLAZA_TOKEN wins', async () => {
    const home = await mkdtemp(join(tmpdir(), 'plaza-config-'));
    const env = { XDG_CONFIG_HOME: home };
    const path = configPath(env);
    expect(path).toBe(join(home, 'plaza', 'config.json'));
    await storeToken(path, 'http://localhost:4000', 'plz_local');
    await storeToken(path, 'https://plaza.example.com', 'plz_prod');
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect(JSON.parse(await readFile(path, 'utf8')).tokens).toEqual({ 'http://localhost:4000': 'plz_local', 'https://plaza.example.com': 'plz_prod' });

    // The last login's URL is the default; another PLAZA_URL gets its own token, never this one.
    expect(await loadSettings(env)).toMatchObject({ url: 'https://plaza.example.com', token: 'plz_prod', tokenSource: 'config' });
    expect(await loadSettings({ ...env, PLAZA_URL: 'http://localhost:4000/' })).toMatchObject({ url: 'http://localhost:4000', token: 'plz_local' });
    expect(await loadSettings({ ...env, PLAZA_URL: 'http://elsewhere:4000' })).toMatchObject({ token: undefined, tokenSource: 'none' });
    expect(await loadSettings({ ...env, PLAZA_TOKEN: 'plz_env' })).toMatchObject({ token: 'plz_env', tokenSource: 'PLAZA_TOKEN' });

    expect(await forgetToken(path, 'https://plaza.example.com')).toBe(true);
    expect(await loadSettings({ ...env, PLAZA_URL: 'https://plaza.example.com' })).toMatchObject({ token: undefined });
  });
});
