import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../src/config.js';

// The benchmarks are built beside the server (dist/bench) and import it as if they lived in src, so they
// are loaded built, as the benchmark smoke test runs them.
const verdicts = (await import(path.join(REPO_ROOT, 'server/dist/bench/soak-verdicts.js'))) as typeof import('../bench/soak-verdicts.js');
const { soakSettings } = (await import(path.join(REPO_ROOT, 'server/dist/bench/soak.bench.js'))) as typeof import('../bench/soak.bench.js');
type SoakSample = import('../bench/soak-verdicts.js').SoakSample;

/** Samples every 30 s over 30 minutes; `at(s)` gives each its memory and latencies. */
const run = (at: (seconds: number) => Partial<SoakSample>): SoakSample[] =>
  Array.from({ length: 60 }, (_, i) => {
    const atSeconds = (i + 1) * 30;
    return { atSeconds, memoryMiB: { API: 150, worker: 150, PostgreSQL: 200 }, latenciesMs: [5, 6, 7], readerMs: [3], ...at(atSeconds) };
  });
const windowsOf = (samples: SoakSample[]) => verdicts.soakWindows(samples, 120, 1800, 300);

/** The soak's verdicts, as BENCHMARKS.md section 10 states them, from its samples. */
describe('soak verdicts', () => {
  it('compare the first five minutes after warm-up with the last five, not the warm-up', () => {
    const windows = windowsOf(run(() => ({})));
    expect(windows.first.map((s) => s.atSeconds)).toEqual([150, 180, 210, 240, 270, 300, 330, 360, 390, 420]);
    expect(windows.last.map((s) => s.atSeconds)).toEqual([1530, 1560, 1590, 1620, 1650, 1680, 1710, 1740, 1770, 1800]);
    // A process that starts big and settles during warm-up is flat.
    const settling = verdicts.memoryVerdicts(windowsOf(run((t) => (t <= 120 ? { memoryMiB: { API: 400, worker: 150, PostgreSQL: 200 } } : {}))));
    expect(settling.every((m) => m.met)).toBe(true);
  });

  it('find a process whose memory grows past 10% and name it, and let 9% pass', () => {
    const growing = (percent: number) => run((t) => ({ memoryMiB: { API: 150, worker: 150 * (1 + (percent / 100) * (t / 1800)), PostgreSQL: 200 } }));
    const leaking = verdicts.memoryVerdicts(windowsOf(growing(15)));
    expect(leaking.filter((m) => !m.met).map((m) => m.name)).toEqual(['worker']);
    expect(leaking.find((m) => m.name === 'worker')!.change).toBeGreaterThan(0.1);
    expect(verdicts.memoryVerdicts(windowsOf(growing(9))).every((m) => m.met)).toBe(true);
  });

  it('take the p99 over every delivery of each window, allowing 25% or 5 ms', () => {
    const tail = (lastMs: number) => run((t) => ({ latenciesMs: [...Array(98).fill(5), ...Array(2).fill(t > 1500 ? lastMs : 10)] }));
    expect(verdicts.latencyVerdict(windowsOf(tail(14)))).toMatchObject({ firstP99Ms: 10, lastP99Ms: 14, firstCount: 1000, lastCount: 1000, met: true });
    expect(verdicts.latencyVerdict(windowsOf(tail(16)))).toMatchObject({ lastP99Ms: 16, met: false });
    // A window without a single delivery received is not stable, whatever the other says.
    expect(verdicts.latencyVerdict(windowsOf(run((t) => ({ latenciesMs: t > 1500 ? [] : [5] })))).met).toBe(false);
  });

  it("predict storage from section 4's bytes with the attempts made, and judge it within 20%", () => {
    // Section 4: 2,365 bytes a delivery of which 921 for three attempts; one attempt each: 2,365 - 921 + 307 = 1,751.
    const one = verdicts.storageVerdict({ grownBytes: 1_751_000, deliveries: 1000, attempts: 1000, statedBytesPerDelivery: 2365, attemptBytes: 921 });
    expect(one).toMatchObject({ bytesPerDelivery: 1751, predictedBytesPerDelivery: 1751, attemptsPerDelivery: 1, met: true });
    expect(one.ratioToStated).toBeCloseTo(1751 / 2365, 5);
    expect(verdicts.storageVerdict({ grownBytes: 2_200_000, deliveries: 1000, attempts: 1000, statedBytesPerDelivery: 2365, attemptBytes: 921 }).met).toBe(false);
    expect(verdicts.storageVerdict({ grownBytes: 2_365_000, deliveries: 1000, attempts: 3000, statedBytesPerDelivery: 2365, attemptBytes: 921 }).met).toBe(true);
  });

  it('call anything missing, failed, unsettled, unreceived or unheard a loss', () => {
    const none = { committed: 10, purchasesAnsweredOk: 2, missing: 0, failed: 0, unsettled: 0, notReceived: 0, subscriberSilentWindows: 0, subscriberErrors: 0 };
    expect(verdicts.nothingLost(none)).toBe(true);
    for (const key of ['missing', 'failed', 'unsettled', 'notReceived', 'subscriberSilentWindows', 'subscriberErrors'] as const) {
      expect(verdicts.nothingLost({ ...none, [key]: 1 }), key).toBe(false);
    }
  });

  it("call a subscriber silent only in a sample in which its app's deliveries settled", () => {
    const samples = [
      { atSeconds: 30, subscriberUpdates: 0, subscribedSettled: 5 }, // warm-up: not counted
      { atSeconds: 60, subscriberUpdates: 4, subscribedSettled: 9 },
      { atSeconds: 90, subscriberUpdates: 0, subscribedSettled: 9 }, // the machine stalled: nothing settled, nothing to hear
      { atSeconds: 120, subscriberUpdates: 0, subscribedSettled: 12 }, // silent
      { atSeconds: 150, subscriberUpdates: 3, subscribedSettled: 15 },
    ];
    expect(verdicts.silentSamples(samples, 45)).toBe(1);
  });

  it('size the windows and samples from SOAK_MINUTES, take SOAK_POSTGRES_SETTINGS, and refuse a run that is all warm-up or a setting without a value', () => {
    expect(soakSettings('full', {})).toMatchObject({ minutes: 30, ratePerSecond: 200, warmUpSeconds: 120, windowSeconds: 300, sampleSeconds: 30 });
    expect(soakSettings('full', { SOAK_MINUTES: '3' })).toMatchObject({ windowSeconds: 30, sampleSeconds: 6 });
    expect(soakSettings('tiny', {})).toMatchObject({ minutes: 0.5, warmUpSeconds: 10, windowSeconds: 10, sampleSeconds: 2 });
    expect(() => soakSettings('full', { SOAK_MINUTES: '2' })).toThrow(/SOAK_MINUTES \(2\) must leave time after the warm-up \(120 s\)/);
    expect(() => soakSettings('full', { SOAK_MINUTES: 'soon' })).toThrow(/SOAK_MINUTES/);
    expect(soakSettings('full', {}).postgresSettings).toEqual({});
    expect(soakSettings('full', { SOAK_POSTGRES_SETTINGS: 'shared_buffers=1GB, bgwriter_lru_maxpages=1000' }).postgresSettings).toEqual({
      shared_buffers: '1GB',
      bgwriter_lru_maxpages: '1000',
    });
    expect(() => soakSettings('full', { SOAK_POSTGRES_SETTINGS: 'shared_buffers' })).toThrow(/SOAK_POSTGRES_SETTINGS: "shared_buffers" is not name=value/);
  });
});
