/**
 * The soak's four verdicts from its samples, apart from the run so they can be checked on made-up samples:
 * memory flat, tail latency stable, storage as predicted, nothing lost.
 */
import { median, percentile } from './harness.js';

/** One reading of the soak, every `sampleSeconds`. Latencies are those of the deliveries (and log reads) since the previous one. */
export interface SoakSample {
  /** Seconds since the load started. */
  atSeconds: number;
  /** Resident memory (VmRSS) of each Plaza process, and PostgreSQL's (Pss summed over the postmaster and its children), MiB. */
  memoryMiB: Record<string, number>;
  /** Commit-to-receipt latency of each delivery first received since the previous sample, ms. */
  latenciesMs: number[];
  /** The Webhook Logs reader's request latencies since the previous sample, ms. */
  readerMs: number[];
}

/** Memory is flat when the last window's median is within this share of the first window's. */
export const MEMORY_TOLERANCE = 0.1;
/**
 * p99 is stable when the last window's is at most this many times the first's, or at most
 * P99_SLACK_MS above it: a p99 of a few ms moves by that much with the scheduling of a shared machine.
 */
export const P99_TOLERANCE = 1.25;
export const P99_SLACK_MS = 5;
/** Storage grows as predicted when bytes per delivery are within this share of the prediction. */
export const STORAGE_TOLERANCE = 0.2;

export interface MemoryVerdict {
  name: string;
  firstMiB: number;
  lastMiB: number;
  change: number;
  met: boolean;
}

export interface SoakWindows {
  /** The samples of the first window after warm-up, and of the last window. */
  first: SoakSample[];
  last: SoakSample[];
}

/**
 * The first `windowSeconds` after warm-up and the last `windowSeconds` of the run. A sample belongs to the
 * window its readings were taken in (it reports what happened since the previous sample).
 */
export function soakWindows(samples: SoakSample[], warmUpSeconds: number, endSeconds: number, windowSeconds: number): SoakWindows {
  return {
    first: samples.filter((s) => s.atSeconds > warmUpSeconds && s.atSeconds <= warmUpSeconds + windowSeconds + 1e-6),
    last: samples.filter((s) => s.atSeconds > endSeconds - windowSeconds + 1e-6 && s.atSeconds <= endSeconds + 1e-6),
  };
}

/** (1) Each process's median memory in the last window against the first; NaN figures (no samples) are not met. */
export function memoryVerdicts(windows: SoakWindows): MemoryVerdict[] {
  const names = [...new Set(windows.first.concat(windows.last).flatMap((s) => Object.keys(s.memoryMiB)))];
  return names.map((name) => {
    const firstMiB = median(windows.first.map((s) => s.memoryMiB[name]).filter((v): v is number => v !== undefined));
    const lastMiB = median(windows.last.map((s) => s.memoryMiB[name]).filter((v): v is number => v !== undefined));
    const change = lastMiB / firstMiB - 1;
    return { name, firstMiB, lastMiB, change, met: Math.abs(change) <= MEMORY_TOLERANCE };
  });
}

export interface LatencyVerdict {
  firstP99Ms: number;
  lastP99Ms: number;
  firstCount: number;
  lastCount: number;
  met: boolean;
}

/** (2) p99 over every delivery received in the last window against the first window's. */
export function latencyVerdict(windows: SoakWindows, pick: (s: SoakSample) => number[] = (s) => s.latenciesMs): LatencyVerdict {
  const first = windows.first.flatMap(pick);
  const last = windows.last.flatMap(pick);
  const firstP99Ms = percentile(first, 99);
  const lastP99Ms = percentile(last, 99);
  return {
    firstP99Ms,
    lastP99Ms,
    firstCount: first.length,
    lastCount: last.length,
    met: first.length > 0 && last.length > 0 && lastP99Ms <= Math.max(firstP99Ms * P99_TOLERANCE, firstP99Ms + P99_SLACK_MS),
  };
}

export interface StorageVerdict {
  grownBytes: number;
  deliveries: number;
  bytesPerDelivery: number;
  /** BENCHMARKS.md section 4's figure, which is for deliveries of three attempts each. */
  statedBytesPerDelivery: number;
  /** The same with the attempts this run made per delivery instead of three. */
  predictedBytesPerDelivery: number;
  attemptsPerDelivery: number;
  ratioToStated: number;
  ratioToPredicted: number;
  met: boolean;
}

/**
 * (3) Bytes the log's tables grew by per delivery recorded, against section 4's bytes per delivery. Section 4
 * seeds three attempts a delivery; a soak's delivery mostly makes one, so the prediction takes section 4's
 * attempt bytes per attempt made (`attemptBytes` is its figure for three).
 */
export function storageVerdict(input: { grownBytes: number; deliveries: number; attempts: number; statedBytesPerDelivery: number; attemptBytes: number }): StorageVerdict {
  const bytesPerDelivery = input.grownBytes / input.deliveries;
  const attemptsPerDelivery = input.attempts / input.deliveries;
  const predictedBytesPerDelivery = input.statedBytesPerDelivery - input.attemptBytes + (input.attemptBytes / 3) * attemptsPerDelivery;
  const ratioToPredicted = bytesPerDelivery / predictedBytesPerDelivery;
  return {
    grownBytes: input.grownBytes,
    deliveries: input.deliveries,
    bytesPerDelivery,
    statedBytesPerDelivery: input.statedBytesPerDelivery,
    predictedBytesPerDelivery,
    attemptsPerDelivery,
    ratioToStated: bytesPerDelivery / input.statedBytesPerDelivery,
    ratioToPredicted,
    met: input.deliveries > 0 && Math.abs(ratioToPredicted - 1) <= STORAGE_TOLERANCE,
  };
}

export interface LossCounts {
  /** Events committed (their recordEvent returned) and purchases answered OK. */
  committed: number;
  purchasesAnsweredOk: number;
  /** Of those: no delivery row at all. */
  missing: number;
  /** A delivery row that ended FAILED. */
  failed: number;
  /** Still PENDING or RETRYING when the run stopped waiting: the backlog, not a loss, but not yet proved delivered. */
  unsettled: number;
  /** SUCCEEDED in the database, yet the verifying receiver never answered it 200. */
  notReceived: number;
  /** Sample windows after warm-up in which the subscriber got no update, and its errors or closed connections. */
  subscriberSilentWindows: number;
  subscriberErrors: number;
}

/**
 * Samples after warm-up in which the subscriber got no update although its app had deliveries settle since the
 * previous sample: a stalled machine that settles none in a sample is not a silent subscriber.
 */
export function silentSamples(samples: { atSeconds: number; subscriberUpdates: number; subscribedSettled: number }[], warmUpSeconds: number): number {
  return samples.filter((s, i) => s.atSeconds > warmUpSeconds + 1e-6 && s.subscriberUpdates === 0 && s.subscribedSettled > (samples[i - 1]?.subscribedSettled ?? 0)).length;
}

/** (4) Nothing lost: every committed event and every purchase answered OK delivered and received, the subscriber hearing throughout. */
export const nothingLost = (c: LossCounts) =>
  c.missing === 0 && c.failed === 0 && c.unsettled === 0 && c.notReceived === 0 && c.subscriberSilentWindows === 0 && c.subscriberErrors === 0;
