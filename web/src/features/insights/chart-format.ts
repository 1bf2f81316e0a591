import { INTL_LOCALE, localeFormat } from '../../i18n/dates';
import type { Locale } from '../../i18n/strings';

/**
 * Numbers and dates of the charts, their summaries and tables, by Intl in the person's chosen language
 * (not the browser's: a Vietnamese reader on an English browser reads "1.234" and "23 thg 11").
 * Counts and money are the app's own formatters (i18n/dates.ts), so a chart says a number as every
 * other page does; the shapes only charts need (axis ticks, buckets, units) are made here.
 * Made once per language: building an Intl formatter is costly.
 */
export interface ChartFormat {
  count(value: number): string;
  /** 0..1 as a percentage with at most one decimal: "97.4%". */
  percent(ratio: number): string;
  ms(value: number): string;
  vnd(value: number): string;
  hours(value: number): string;
  /** The start of an hour or a minute, in the viewer's time zone. */
  hour(iso: string): string;
  /** A UTC calendar day (the server's day, week and month buckets start at UTC midnight). */
  day(iso: string): string;
  month(iso: string): string;
  dateTime(iso: string): string;
  /** Short tick labels for a chart's time axis. */
  tickTime(date: Date): string;
  tickDay(date: Date): string;
  /** A day in the viewer's time zone, for hourly buckets a week long. */
  tickLocalDay(date: Date): string;
  tickMonth(date: Date): string;
}

const made = new Map<Locale, ChartFormat>();

export function chartFormat(locale: Locale): ChartFormat {
  const known = made.get(locale);
  if (known) return known;
  const tag = INTL_LOCALE[locale];
  const app = localeFormat(locale);
  const percent = new Intl.NumberFormat(tag, { style: 'percent', maximumFractionDigits: 1 });
  const ms = new Intl.NumberFormat(tag, { style: 'unit', unit: 'millisecond', maximumFractionDigits: 0 });
  const hours = new Intl.NumberFormat(tag, { style: 'unit', unit: 'hour', maximumFractionDigits: 1 });
  const hour = new Intl.DateTimeFormat(tag, { month: 'short', day: 'numeric', hour: 'numeric', minute: '2-digit' });
  const day = new Intl.DateTimeFormat(tag, { dateStyle: 'medium', timeZone: 'UTC' });
  const month = new Intl.DateTimeFormat(tag, { month: 'long', year: 'numeric', timeZone: 'UTC' });
  const dateTime = new Intl.DateTimeFormat(tag, { dateStyle: 'medium', timeStyle: 'short' });
  const tickTime = new Intl.DateTimeFormat(tag, { hour: 'numeric', minute: '2-digit' });
  const tickDay = new Intl.DateTimeFormat(tag, { month: 'short', day: 'numeric', timeZone: 'UTC' });
  const tickLocalDay = new Intl.DateTimeFormat(tag, { month: 'short', day: 'numeric' });
  const tickMonth = new Intl.DateTimeFormat(tag, { month: 'short', year: '2-digit', timeZone: 'UTC' });
  const format: ChartFormat = {
    count: (value) => app.number(value),
    percent: (ratio) => percent.format(ratio),
    ms: (value) => ms.format(value),
    vnd: (value) => app.vnd(value),
    hours: (value) => hours.format(value),
    hour: (iso) => hour.format(new Date(iso)),
    day: (iso) => day.format(new Date(iso)),
    month: (iso) => month.format(new Date(iso)),
    dateTime: (iso) => dateTime.format(new Date(iso)),
    tickTime: (date) => tickTime.format(date),
    tickDay: (date) => tickDay.format(date),
    tickLocalDay: (date) => tickLocalDay.format(date),
    tickMonth: (date) => tickMonth.format(date),
  };
  made.set(locale, format);
  return format;
}
