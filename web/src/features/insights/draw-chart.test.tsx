import { describe, expect, it } from 'vitest';
import { CALENDAR_TICKS, DAILY_TICKS_OF_HOURS, HOURLY_TICKS } from './chart-types';
import { timeSplits } from './draw-chart';

const HOUR = 3600;
/** Hourly bucket starts (seconds), oldest first, the first at local 07:00 so midnight falls inside. */
function hours(count: number): number[] {
  const first = new Date(2030, 0, 1, 7).getTime() / 1000;
  return Array.from({ length: count }, (_, index) => first + index * HOUR);
}

describe('time-axis labels', () => {
  it('labels a week of hours once a day, at local midnight', () => {
    const splits = timeSplits(hours(168), DAILY_TICKS_OF_HOURS, 1100);
    expect(splits).toHaveLength(7);
    for (const split of splits) expect([new Date(split * 1000).getHours(), new Date(split * 1000).getMinutes()]).toEqual([0, 0]);
  });

  it('labels every other day when a week does not fit (a phone)', () => {
    const splits = timeSplits(hours(168), DAILY_TICKS_OF_HOURS, 300);
    expect(splits.length).toBeLessThanOrEqual(4);
    expect(splits[1]! - splits[0]!).toBe(48 * HOUR);
  });

  it('labels a day of hours on round hours, as many as fit', () => {
    const wide = timeSplits(hours(24), HOURLY_TICKS, 1100);
    expect(wide.length).toBeLessThanOrEqual(Math.floor(1100 / 72));
    expect(wide.every((split) => new Date(split * 1000).getHours() % 2 === 0)).toBe(true);
  });

  it('labels the newest of 30 days, then every few back', () => {
    const days = Array.from({ length: 30 }, (_, index) => Date.UTC(2030, 0, 1 + index) / 1000);
    const splits = timeSplits(days, CALENDAR_TICKS, 900);
    expect(splits.at(-1)).toBe(days.at(-1));
    expect(splits.length).toBeLessThanOrEqual(Math.floor(900 / 72));
  });
});
