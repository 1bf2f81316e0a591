import pg from 'pg';

/** pg's own reader (postgres-date): regular expressions per value; kept for every form the fast path does not take. */
const readAnyForm = pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ) as (text: string) => Date;

const digit = (text: string, at: number) => text.charCodeAt(at) - 48;
const pair = (text: string, at: number) => digit(text, at) * 10 + digit(text, at + 1);

/**
 * Reads a timestamptz as PostgreSQL writes it with DateStyle ISO, "2026-11-22 17:09:47.397+00" or
 * "...+05:30", by character codes. Every API page and delivery batch carries many of them, and the
 * regular-expression reader was the largest single cost of the store page in a profile (7% of its CPU).
 * Anything else (years before 1000 or after 9999, BC, infinity, offsets with seconds) goes to pg's
 * reader. Same result to the millisecond: extra fraction digits are cut off, as there.
 */
export function readTimestamptz(text: string): Date {
  const length = text.length;
  if (length < 22 || text[4] !== '-' || text[7] !== '-' || text[10] !== ' ' || text[13] !== ':' || text[16] !== ':' || text[0] === '0') return readAnyForm(text);
  let at = 19;
  let ms = 0;
  if (text[at] === '.') {
    at += 1;
    for (let scale = 100; at < length && text.charCodeAt(at) >= 48 && text.charCodeAt(at) <= 57; at += 1, scale /= 10) ms += digit(text, at) * scale;
    ms = Math.trunc(ms);
  }
  const sign = text[at];
  if (sign !== '+' && sign !== '-') return readAnyForm(text);
  let offsetMinutes = pair(text, at + 1) * 60;
  if (length === at + 6 && text[at + 3] === ':') offsetMinutes += pair(text, at + 4);
  else if (length !== at + 3) return readAnyForm(text);
  const utc = Date.UTC(digit(text, 0) * 1000 + digit(text, 1) * 100 + pair(text, 2), pair(text, 5) - 1, pair(text, 8), pair(text, 11), pair(text, 14), pair(text, 17), ms);
  return new Date(utc - (sign === '+' ? 1 : -1) * offsetMinutes * 60_000);
}

/** Every pg client in this process reads timestamptz with readTimestamptz. */
export function readTimestamptzFast(): void {
  pg.types.setTypeParser(pg.types.builtins.TIMESTAMPTZ, readTimestamptz);
}

const twoDigits = (n: number) => (n < 10 ? '0' : '') + n;
const threeDigits = (n: number) => (n < 10 ? '00' : n < 100 ? '0' : '') + n;
/** The last millisecond of year 9999 plus one: past it (and before 1970) toISOString writes the year another way. */
const YEAR_10000 = 253_402_300_800_000;

/**
 * The same text as date.toISOString(), by arithmetic on the epoch milliseconds (the civil-from-days
 * algorithm of H. Hinnant): every DateTime an API answer carries is written this way, and 60 of them (a
 * page of 20 deliveries) cost 26 µs through toISOString, 9 µs here. Before 1970 and after 9999: toISOString.
 */
export function writeIsoTimestamp(date: Date): string {
  const time = date.getTime();
  if (!(time >= 0 && time < YEAR_10000)) return date.toISOString();
  const msOfDay = time % 86_400_000;
  const shifted = (time - msOfDay) / 86_400_000 + 719_468;
  const era = Math.floor(shifted / 146_097);
  const dayOfEra = shifted - era * 146_097;
  const yearOfEra = Math.floor((dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365);
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const monthFromMarch = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * monthFromMarch + 2) / 5) + 1;
  const month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  return `${year}-${twoDigits(month)}-${twoDigits(day)}T${twoDigits(Math.floor(msOfDay / 3_600_000))}:${twoDigits(Math.floor(msOfDay / 60_000) % 60)}:${twoDigits(
    Math.floor(msOfDay / 1000) % 60,
  )}.${threeDigits(msOfDay % 1000)}Z`;
}
