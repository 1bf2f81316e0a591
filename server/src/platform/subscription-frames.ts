import type { Duplex } from 'node:stream';
import type { ExecutionArgs, ExecutionResult, FormattedExecutionResult } from 'graphql';
import { MessageType } from 'graphql-ws';
import type { WebSocket } from 'ws';
import { logger } from './logger.js';
import { DIRECT, type DirectSource } from './pubsub.js';

/**
 * Set on a subscription's execution args (graphql-ws hands its `onSubscribe` result to `subscribe`
 * as is): the server then writes that subscription's `next` frames itself, through `FrameOutbox`,
 * instead of graphql-ws stringifying and sending each subscriber's message on its own.
 */
export const FRAME_TARGET = Symbol('plaza.subscriptionFrameTarget');

export interface FrameTarget {
  socket: WebSocket;
  /** The subscription's id on its socket, as the client chose it in `subscribe`. */
  id: string;
  /** A result with errors, shaped as over HTTP; per subscriber, since it logs with that subscriber's request id. */
  formatErrors: (result: ExecutionResult) => FormattedExecutionResult;
  outbox: FrameOutbox;
}

export type FramedExecutionArgs = ExecutionArgs & { [FRAME_TARGET]?: FrameTarget };

// A shared answer is one object for every subscriber of its question: its JSON is made once.
const serialised = new WeakMap<ExecutionResult, string>();

/** The `payload` of a `next` message for a result without errors, as graphql-ws would write it (`{"data":…}`). */
function payloadJson(result: ExecutionResult): string {
  let json = serialised.get(result);
  if (json === undefined) serialised.set(result, (json = JSON.stringify(result)));
  return json;
}

const DONE: IteratorResult<ExecutionResult> = { value: undefined, done: true };

/**
 * Sends `source`'s updates, each answered by `answer` (shared between subscribers asking the same
 * question), to `target` as `next` frames. Only the frame's envelope is per subscriber: its id and the
 * write. A source that can hand updates over directly (`DIRECT`, the pub/sub's) costs no promise per
 * update; any other is iterated. graphql-ws iterates the returned iterator as usual, which yields
 * nothing and ends when the source does (graphql-ws then sends `complete`, or `error` if the source
 * failed) or when graphql-ws returns it (the client's `complete`, a closed socket).
 */
export function sendStream(
  source: AsyncIterable<unknown>,
  answer: (payload: unknown) => ExecutionResult | Promise<ExecutionResult>,
  target: FrameTarget,
): AsyncIterableIterator<ExecutionResult> & { return(): Promise<IteratorResult<ExecutionResult>> } {
  const iterator = source[Symbol.asyncIterator]();
  const envelope = `{"id":${JSON.stringify(target.id)},"type":"${MessageType.Next}","payload":`;
  const send = (result: ExecutionResult) => {
    const payload = result.errors?.length ? JSON.stringify(target.formatErrors(result)) : payloadJson(result);
    target.outbox.push(target.socket, `${envelope}${payload}}`);
  };

  let stopped = false;
  let settle!: { resolve: (step: IteratorResult<ExecutionResult>) => void; reject: (err: unknown) => void };
  const ended = new Promise<IteratorResult<ExecutionResult>>((resolve, reject) => (settle = { resolve, reject }));
  // A failure is graphql-ws's to report, once it asks for the next update; until then it is not unhandled.
  ended.catch(() => undefined);
  // graphql-ws writes this id's `complete` or `error` itself, right away: the updates go first.
  const stop = (): boolean => {
    if (stopped) return false;
    stopped = true;
    target.outbox.flush(target.socket);
    return true;
  };
  const done = () => void (stop() && settle.resolve(DONE));
  const fail = (err: unknown) => {
    if (!stop()) return;
    // graphql-ws reports the failure and forgets the subscription; the source must stop listening too.
    // The failure that matters is passed on below; one in stopping the source as well would add nothing.
    void Promise.resolve(iterator.return?.()).catch(() => undefined);
    settle.reject(err);
  };

  if (DIRECT in source) {
    // An answer still being read (a field from the database) keeps its place: later updates wait behind it.
    let reading: Promise<void> | undefined;
    (source as AsyncIterable<unknown> & DirectSource)[DIRECT]((payload) => {
      if (stopped) return;
      try {
        const pending = answer(payload);
        if (!reading && !(pending instanceof Promise)) return send(pending);
        const before = reading;
        const current = (async () => {
          await before;
          const result = await pending;
          if (!stopped) send(result);
        })();
        reading = current;
        current.then(() => void (reading === current && (reading = undefined)), fail);
      } catch (err) {
        fail(err);
      }
    });
  } else {
    // Never rejects: its failure goes to fail(), which ends the subscription with it.
    void (async () => {
      try {
        for (let step = await iterator.next(); !step.done && !stopped; step = await iterator.next()) {
          const pending = answer(step.value);
          const result = pending instanceof Promise ? await pending : pending;
          if (!stopped) send(result);
        }
        done();
      } catch (err) {
        fail(err);
      }
    })();
  }

  return {
    next: () => ended,
    return: async () => {
      done();
      await iterator.return?.();
      return DONE;
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}

/**
 * Frames waiting to be written, per socket, written together once per burst: every subscriber of one
 * NOTIFY gets its frames in the same pass, and a socket with several frames (several updates in one
 * NOTIFY, or several subscriptions) gets them in one write instead of one each.
 */
/**
 * How far a subscriber may fall behind: bytes written to its socket that it has not read yet. One that
 * stops reading would otherwise make the server hold every later update for it in memory, without end.
 * 8 MiB is about 2,000 delivery updates: far more than a live reader ever leaves waiting.
 */
export const MAX_UNREAD_BYTES = 8 * 1024 * 1024;

/** The close code for a subscriber left behind: 1013, "try again later" (graphql-ws clients reconnect). */
export const FELL_BEHIND_CLOSE_CODE = 1013;

export class FrameOutbox {
  private pending = new Map<WebSocket, string[]>();
  private scheduled = false;

  constructor(private readonly maxUnreadBytes = MAX_UNREAD_BYTES) {}

  push(socket: WebSocket, frame: string): void {
    const frames = this.pending.get(socket);
    if (frames) frames.push(frame);
    else this.pending.set(socket, [frame]);
    if (!this.scheduled) {
      this.scheduled = true;
      // After the microtasks of the NOTIFY that caused it, so the whole burst is queued by then.
      setImmediate(this.flushAll);
    }
  }

  /** Writes `socket`'s waiting frames now (before graphql-ws writes a message of its own after them). */
  flush(socket: WebSocket): void {
    const frames = this.pending.get(socket);
    if (!frames) return;
    this.pending.delete(socket);
    writeFrames(socket, frames, this.maxUnreadBytes);
  }

  private readonly flushAll = (): void => {
    this.scheduled = false;
    const pending = this.pending;
    this.pending = new Map();
    for (const [socket, frames] of pending) writeFrames(socket, frames, this.maxUnreadBytes);
  };
}

function writeFrames(socket: WebSocket, frames: string[], maxUnreadBytes: number): void {
  // A socket closing meanwhile gets nothing, as graphql-ws's own send does.
  if (socket.readyState !== socket.OPEN) return;
  if (socket.bufferedAmount > maxUnreadBytes) {
    logger.warn({ unreadBytes: socket.bufferedAmount }, 'subscriber fell behind its live updates; closing its socket');
    socket.close(FELL_BEHIND_CLOSE_CODE, 'Too far behind the live updates: reconnect');
    // A peer that reads nothing does not answer the close either: end the connection after a grace.
    setTimeout(() => socket.terminate(), 5_000).unref();
    return;
  }
  // ws writes each message with its own cork/uncork; corking around them all makes one write of the lot.
  const raw = (socket as unknown as { _socket?: Duplex })._socket;
  raw?.cork();
  try {
    for (const frame of frames) socket.send(frame);
  } catch (err) {
    // One socket's fault must not cost the rest of the burst its updates (nor the process its life).
    logger.warn({ err }, 'subscription frames not written; closing the socket');
    socket.terminate();
  } finally {
    raw?.uncork();
  }
}
