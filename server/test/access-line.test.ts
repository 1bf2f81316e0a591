import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { accessLineText, LOGGER_OPTIONS, type AccessLine } from '../src/platform/logger.js';

/**
 * The access line is written by Plaza's own formatter (the busiest line of the process, without pino's redaction
 * and per-request child). Log shippers and the tests of real processes read it as pino's: these pin it to the bytes
 * pino itself writes for the same line, with the same options, at the same time.
 */
function pinosLine(time: number, line: AccessLine): string {
  let written = '';
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      written += chunk.toString('utf8');
      done();
    },
  });
  const logger = pino({ ...LOGGER_OPTIONS, level: 'info', timestamp: () => `,"time":${time}` }, sink);
  const { requestId, aborted, ...fields } = line;
  logger.child({ requestId }).info({ ...fields, ...(aborted ? { aborted: true } : {}) }, 'request');
  return written;
}

describe('the access line', () => {
  const time = Date.UTC(2026, 10, 28, 12, 0, 0, 123);

  it('is the bytes pino writes for a finished request', () => {
    const line: AccessLine = { requestId: 'test-123', method: 'POST', path: '/graphql', status: 200, durationMs: 0.4, aborted: false };
    expect(accessLineText(time, line)).toBe(pinosLine(time, line));
  });

  it('is the bytes pino writes for one cut off, with a generated id, a whole-number duration and an error status', () => {
    const line: AccessLine = { requestId: 'f3c1a9e2-6b8d-4c2e-9f1a-2b3c4d5e6f70', method: 'GET', path: '/auth/dev/sign-in', status: 503, durationMs: 12, aborted: true };
    expect(accessLineText(time, line)).toBe(pinosLine(time, line));
  });

  it('quotes a path as pino does (the path is the client’s, percent-encoded or not)', () => {
    const line: AccessLine = { requestId: 'a.b_c-1', method: 'GET', path: '/store/"quoted"\\back\u0001', status: 404, durationMs: 1.5, aborted: false };
    expect(accessLineText(time, line)).toBe(pinosLine(time, line));
    expect(JSON.parse(accessLineText(time, line))).toMatchObject({ path: '/store/"quoted"\\back\u0001', msg: 'request' });
  });
});
