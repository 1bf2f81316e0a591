import { describe, expect, it } from 'vitest';
import { appNameIssue, NAME_MAX_CHARS, pricePointsIssue, shortDescriptionIssue, urlIssue, urlShapeIssue, webhookUrlIssue, HTTPS_ONLY } from '../src/index.js';

describe('app name', () => {
  it('counts characters as people do, so Vietnamese and emoji get the full length', () => {
    expect(appNameIssue('Ứ'.repeat(NAME_MAX_CHARS))).toBeUndefined();
    expect(appNameIssue('🎲'.repeat(NAME_MAX_CHARS))).toBeUndefined();
    expect(appNameIssue('🎲'.repeat(NAME_MAX_CHARS + 1))).toEqual({ code: 'TOO_LONG', max: NAME_MAX_CHARS, count: NAME_MAX_CHARS + 1 });
  });

  it('is required, and blank is not a name', () => {
    expect(appNameIssue('   ')).toEqual({ code: 'REQUIRED' });
    expect(appNameIssue(undefined)).toEqual({ code: 'REQUIRED' });
  });

  it('names the hidden character before the length, so the fix is clear', () => {
    expect(appNameIssue('Plaza Wallet\u202Egnp.exe')).toEqual({ code: 'HIDDEN_CHARACTER', codePoint: 'U+202E' });
    expect(appNameIssue('Dev Tools 👩‍💻')).toBeUndefined();
  });
});

describe('short description', () => {
  it('is one line', () => {
    expect(shortDescriptionIssue('Daily\ntrivia')).toEqual({ code: 'MULTILINE' });
  });

  it('allows 120 characters, not 121', () => {
    expect(shortDescriptionIssue('x'.repeat(120))).toBeUndefined();
    expect(shortDescriptionIssue('x'.repeat(121))).toEqual({ code: 'TOO_LONG', max: 120, count: 121 });
  });
});

describe('URLs', () => {
  it('must be absolute https for the app and icon', () => {
    expect(urlIssue('https://quiz.example/play', HTTPS_ONLY)).toBeUndefined();
    expect(urlIssue('quiz.example/play', HTTPS_ONLY)).toEqual({ code: 'NOT_ABSOLUTE_URL' });
    expect(urlIssue('http://quiz.example/play', HTTPS_ONLY)).toEqual({ code: 'NOT_HTTPS' });
    expect(urlIssue('https://me:pw@quiz.example/', HTTPS_ONLY)).toEqual({ code: 'URL_HAS_CREDENTIALS' });
  });

  it('judges the shape apart from presence, for hints while typing', () => {
    expect(urlShapeIssue('ftp://quiz.example', HTTPS_ONLY)).toEqual({ code: 'NOT_HTTPS' });
  });

  it('lets a webhook be absent or plain http, which the server allows by configuration', () => {
    expect(webhookUrlIssue(null)).toBeUndefined();
    expect(webhookUrlIssue('http://127.0.0.1:9000/hook')).toBeUndefined();
    expect(webhookUrlIssue('ftp://hooks.example')).toEqual({ code: 'NOT_HTTP_OR_HTTPS' });
  });
});

describe('price', () => {
  it('is a whole number of points between 1 and a million', () => {
    expect(pricePointsIssue(null)).toBeUndefined();
    expect(pricePointsIssue(50)).toBeUndefined();
    for (const bad of [0, -5, 1.5, Number.NaN, '50']) expect(pricePointsIssue(bad)).toEqual({ code: 'NOT_POSITIVE_WHOLE_NUMBER' });
    expect(pricePointsIssue(1_000_001)).toEqual({ code: 'TOO_MANY_POINTS', max: 1_000_000 });
  });
});
