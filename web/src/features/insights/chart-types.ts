/** The theme colours a series may take: each is a CSS variable of styles.css, in both themes. */
export type ChartColor = 'success' | 'danger' | 'accent' | 'warning' | 'ink';

/**
 * Which buckets get a label on the time axis: every `strides[i]` buckets (the smallest that fits the width),
 * starting at the first bucket `align` accepts (a local midnight, a round minute), else so the newest is labelled.
 */
export interface TimeTicks {
  strides: number[];
  align?: (date: Date, stride: number) => boolean;
}

/** Hourly buckets over a day: every hour, 2, 3… on the clock's round hours. */
export const HOURLY_TICKS: TimeTicks = { strides: [1, 2, 3, 4, 6, 12], align: (date, stride) => date.getMinutes() === 0 && date.getHours() % stride === 0 };
/** Hourly buckets over a week: one label a day, at local midnight. */
export const DAILY_TICKS_OF_HOURS: TimeTicks = { strides: [24, 48, 72], align: (date) => date.getHours() === 0 && date.getMinutes() === 0 };
/** Minute buckets over an hour: on round minutes. */
export const MINUTE_TICKS: TimeTicks = { strides: [1, 5, 10, 15, 30], align: (date, stride) => date.getMinutes() % stride === 0 };
/** Day, week or month buckets: the newest labelled, then every few back. */
export const CALENDAR_TICKS: TimeTicks = { strides: [1, 2, 3, 4, 5, 7, 10, 14] };

export interface ChartSeries {
  label: string;
  values: number[];
  color: ChartColor;
  kind: 'bar' | 'line';
  /** The right axis has its own scale (money beside counts). */
  axis?: 'left' | 'right';
  /** Stacked series pile up in the order given, the first at the bottom. */
  stacked?: boolean;
}
