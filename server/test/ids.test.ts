import { describe, expect, it } from 'vitest';
import { newWebhookId, ulid } from '../src/platform/ids.js';

describe('ULIDs', () => {
  it('sort in the order they were made, within one millisecond too', () => {
    const at = Date.now();
    const made = Array.from({ length: 1000 }, () => newWebhookId.delivery(at));
    expect(new Set(made).size).toBe(made.length);
    expect([...made].sort()).toEqual(made);
    // Every one carries that millisecond.
    expect(new Set(made.map((id) => id.slice(0, 'dlv_'.length + 10))).size).toBe(1);
  });

  it('keep the time they are made for: one for an earlier time has that time, and the order after it is kept', () => {
    const at = Date.now() + 1000;
    const first = ulid(at);
    const earlier = ulid(at - 60_000);
    const second = ulid(at);
    expect(earlier.slice(0, 10) < first.slice(0, 10)).toBe(true);
    expect(first < second).toBe(true);
  });

  it('carry into the characters before when the last one is at its end', () => {
    // Found by making ids in one millisecond until a carry happens (each step adds one to the last character).
    const at = Date.now() + 2000;
    let previous = ulid(at);
    let carried = false;
    for (let i = 0; i < 100 && !carried; i++) {
      const next = ulid(at);
      expect(next > previous).toBe(true);
      carried = previous.endsWith('Z') && next.endsWith('0');
      previous = next;
    }
    expect(carried).toBe(true);
  });
});
