import type { Locale } from './strings';

// Every date, time and number the web app shows is formatted here, by Intl in the person's chosen
// language (en-US or vi-VN), not the browser's: a Vietnamese reader on an English browser read
// "11/23/2026, 1:23:37 PM". The formatters are made once per language: building one is costly.

export interface LocaleFormat {
  /** An ISO 8601 time from the API, to the minute: due dates, submissions, decisions. */
  dateTime(isoDateTime: string): string;
  /** An ISO 8601 time from the API, to the second: delivery logs, where seconds tell attempts apart. */
  instant(isoDateTime: string): string;
  /** A count or an amount of points: "1,234" in English, "1.234" in Vietnamese. */
  number(value: number): string;
  /** An amount of money in Vietnamese đồng: "₫50,000" / "50.000 ₫". */
  vnd(value: number): string;
}

export const INTL_LOCALE: Record<Locale, string> = { en: 'en-US', vi: 'vi-VN' };

// English keeps its familiar shapes ("Jan 2, 2030, 3:04 AM"; "1/2/2030, 3:04:05 AM"); Vietnamese reads
// day before month with two digits each ("15:04 02/01/2030"), as Vietnamese forms and receipts do.
const DATE_TIME: Record<Locale, Intl.DateTimeFormatOptions> = {
  en: { dateStyle: 'medium', timeStyle: 'short' },
  vi: { day: '2-digit', month: '2-digit', year: 'numeric', hour: '2-digit', minute: '2-digit' },
};
const INSTANT: Record<Locale, Intl.DateTimeFormatOptions> = {
  en: { year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' },
  vi: { day: '2-digit', month: '2-digit', year: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit' },
};

const made = new Map<Locale, LocaleFormat>();

/** The formatters of one language; components use `useFormat()` (i18n.tsx), which picks the reader's. */
export function localeFormat(locale: Locale): LocaleFormat {
  const known = made.get(locale);
  if (known) return known;
  const tag = INTL_LOCALE[locale];
  const dateTime = new Intl.DateTimeFormat(tag, DATE_TIME[locale]);
  const instant = new Intl.DateTimeFormat(tag, INSTANT[locale]);
  const number = new Intl.NumberFormat(tag);
  const vnd = new Intl.NumberFormat(tag, { style: 'currency', currency: 'VND' });
  const format: LocaleFormat = {
    dateTime: (iso) => dateTime.format(new Date(iso)),
    instant: (iso) => instant.format(new Date(iso)),
    number: (value) => number.format(value),
    vnd: (value) => vnd.format(value),
  };
  made.set(locale, format);
  return format;
}
