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
