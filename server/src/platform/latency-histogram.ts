/**
 * A fixed, log-spaced histogram of durations in ms, kept as an int[] of counts so that rollups can add
 * them and percentiles come from the sums. Slots are about 19% wide (2^(1/4)), so a percentile read
 * from it is within about 10% of the exact one. Slot 0 holds 0 ms; slot k holds LATENCY_BOUNDS_MS[k-1]
 * up to (not including) LATENCY_BOUNDS_MS[k]; the last slot everything from the last bound (about 2
 * minutes) up. Stored arrays are read by position: never change the bounds without rewriting them.
 */
export const LATENCY_BOUNDS_MS: readonly number[] = (() => {
  const bounds: number[] = [];
  for (let i = 1; 2 ** (i / 4) <= 120_000; i++) {
    const bound = Math.round(2 ** (i / 4));
    if (bounds.at(-1) !== bound) bounds.push(bound);
  }
  return bounds;
})();

/** How many counts a histogram has. */
export const LATENCY_SLOTS = LATENCY_BOUNDS_MS.length + 1;

/** The slot of a duration: the number of bounds at or below it. */
export function latencySlot(durationMs: number): number {
  let low = 0;
  let high = LATENCY_BOUNDS_MS.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (LATENCY_BOUNDS_MS[mid]! <= durationMs) low = mid + 1;
    else high = mid;
  }
  return low;
}

/** The duration a slot stands for: its lowest value for narrow slots, else the geometric middle of its range. */
export function slotValue(slot: number): number {
  if (slot === 0) return 0;
  const low = LATENCY_BOUNDS_MS[slot - 1]!;
  if (slot === LATENCY_BOUNDS_MS.length) return low;
  const highest = LATENCY_BOUNDS_MS[slot]! - 1;
  return Math.round(Math.sqrt(low * highest));
}

/** The q-quantile (0..1) as percentile_disc defines it (the first value whose cumulative share reaches q); null when empty. */
export function histogramPercentile(counts: readonly number[], q: number): number | null {
  const total = counts.reduce((sum, n) => sum + n, 0);
  if (total === 0) return null;
  const rank = Math.max(1, Math.ceil(q * total));
  let seen = 0;
  for (let slot = 0; slot < counts.length; slot++) {
    seen += counts[slot]!;
    if (seen >= rank) return slotValue(slot);
  }
  return slotValue(counts.length - 1);
}
