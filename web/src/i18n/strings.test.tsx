// A .tsx file because the web project runs src/**/*.test.tsx.
import { describe, expect, it } from 'vitest';
import { localeFormat } from './dates';
import { STRINGS, type MessageKey } from './strings';

/**
 * Words that read the same in English and Vietnamese, so a Vietnamese value equal to the English one
 * is right for them: brand and product names, codes, units and pure formats. Anything else that is
 * equal was copied and never translated.
 */
const SAME_IN_BOTH: ReadonlySet<MessageKey> = new Set<MessageKey>([
  'nav.graphiql', // GraphiQL, a product's name
  'webhooks.url', // URL
  'insights.none', // —
  'webhooks.durationMs', // {ms} ms
  'webhooks.eventOption', // {label} ({wire})
  'webhooks.response.http', // HTTP {status}: the protocol's name and a number
  'webhooks.attemptChip', // #{number} · {trigger} · : the trigger comes translated
]);

describe('translations', () => {
  it('has every key in both languages, with the same {placeholders}', () => {
    const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((match) => match[1]).sort();
    expect(Object.keys(STRINGS.vi).sort()).toEqual(Object.keys(STRINGS.en).sort());
    const differing = (Object.keys(STRINGS.en) as MessageKey[]).filter((key) => placeholders(STRINGS.en[key]).join() !== placeholders(STRINGS.vi[key] ?? '').join());
    expect(differing).toEqual([]);
  });

  it('translates every Vietnamese value, except names and formats that read the same in both', () => {
    const untranslated = (Object.keys(STRINGS.en) as MessageKey[]).filter((key) => STRINGS.vi[key] === STRINGS.en[key] && !SAME_IN_BOTH.has(key));
    expect(untranslated).toEqual([]);
  });
});

describe('dates and numbers in the chosen language, whatever the browser’s', () => {
  // Local noon, so the day is the same in every time zone the test runs in.
  const noon = new Date(2030, 0, 2, 12, 4, 5).toISOString();

  it('writes Vietnamese dates day first with two digits, and groups thousands with dots', () => {
    const vi = localeFormat('vi');
    expect(vi.dateTime(noon)).toMatch(/\b02\/01\/2030\b/);
    expect(vi.instant(noon)).toMatch(/^12:04:05 02\/01\/2030$/);
    expect(vi.number(1234567)).toBe('1.234.567');
  });

  it('keeps the American shapes in English', () => {
    const en = localeFormat('en');
    expect(en.dateTime(noon)).toBe('Jan 2, 2030, 12:04 PM');
    expect(en.instant(noon)).toBe('1/2/2030, 12:04:05 PM');
    expect(en.number(1234567)).toBe('1,234,567');
  });
});
