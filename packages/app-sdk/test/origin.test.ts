import { describe, expect, it } from 'vitest';
import { isAllowedOrigin } from '../src/index.js';

const allowed = ['https://platform.example', 'http://localhost:4000'];

describe('isAllowedOrigin', () => {
  it.each([
    'https://platform.example',
    'https://app.platform.example',
    'https://a.b.platform.example',
    'https://PLATFORM.Example',
    'https://App.Platform.Example',
    'https://platform.example:443',
    'http://localhost:4000',
  ])('accepts %s', (origin) => {
    expect(isAllowedOrigin(origin, allowed)).toBe(true);
  });

  it.each([
    ['a look-alike suffix', 'https://platform.example.evil.com'],
    ['a look-alike prefix', 'https://evilplatform.example'],
    ['a hyphenated look-alike', 'https://evil-platform.example'],
    ['another port', 'https://platform.example:8443'],
    ['a subdomain on another port', 'https://app.platform.example:8443'],
    ['http instead of https', 'http://platform.example'],
    ['https instead of http', 'https://localhost:4000'],
    ['localhost on another port', 'http://localhost:4001'],
    ['an empty label', 'https://.platform.example'],
    ['a parent domain', 'https://example'],
    ['the string null', 'null'],
    ['an empty string', ''],
    ['garbage', 'not an origin'],
    ['a scheme-less host', 'platform.example'],
    ['a path', 'https://platform.example/app'],
    ['credentials', 'https://user@platform.example'],
    ['a query', 'https://platform.example?x=1'],
    ['an empty query', 'https://platform.example/?'],
    ['another scheme', 'javascript://platform.example'],
    ['a file URL', 'file:///platform.example'],
  ])('refuses %s', (_case, origin) => {
    expect(isAllowedOrigin(origin, allowed)).toBe(false);
  });

  it('never matches non-string values', () => {
    for (const value of [null, undefined, 42, {}, ['https://platform.example']]) {
      expect(isAllowedOrigin(value as never, allowed)).toBe(false);
    }
  });

  it('tolerates a trailing slash and upper case in the allowed list', () => {
    expect(isAllowedOrigin('https://platform.example', ['https://platform.example/'])).toBe(true);
    expect(isAllowedOrigin('https://app.platform.example', ['https://Platform.Example/'])).toBe(true);
  });

  it('ignores malformed allowed entries instead of matching everything', () => {
    expect(isAllowedOrigin('https://platform.example', ['*'])).toBe(false);
    expect(isAllowedOrigin('https://platform.example', ['platform.example'])).toBe(false);
    expect(isAllowedOrigin('https://platform.example', ['https://platform.example/path'])).toBe(false);
    expect(isAllowedOrigin('https://platform.example', [])).toBe(false);
    expect(isAllowedOrigin('https://platform.example', 'https://platform.example' as never)).toBe(false);
  });

  it('matches IP addresses exactly, never as a parent domain', () => {
    expect(isAllowedOrigin('http://127.0.0.1:4000', ['http://127.0.0.1:4000'])).toBe(true);
    expect(isAllowedOrigin('http://1.127.0.0.1:4000', ['http://127.0.0.1:4000'])).toBe(false);
    expect(isAllowedOrigin('http://[::1]:4000', ['http://[::1]:4000'])).toBe(true);
  });
});
