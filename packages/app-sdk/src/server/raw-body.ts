import type { IncomingMessage } from 'node:http';

export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

export class BodyTooLargeError extends Error {
  constructor(limit: number) {
    super(`Request body is larger than ${limit} bytes`);
    this.name = 'BodyTooLargeError';
  }
}

/**
 * Reads the request body as the exact bytes received: the signature is computed over them. Past the
 * limit the rest is drained and dropped rather than the stream destroyed, because destroying an
 * unfinished request closes the socket before the 413 can be sent.
 */
export function readRawBody(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > maxBytes) {
      req.resume();
      reject(new BodyTooLargeError(maxBytes));
      return;
    }

    const chunks: Buffer[] = [];
    let received = 0;
    const onData = (chunk: Buffer | string) => {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      received += bytes.length;
      if (received > maxBytes) {
        cleanUp();
        req.resume();
        reject(new BodyTooLargeError(maxBytes));
        return;
      }
      chunks.push(bytes);
    };
    const onEnd = () => {
      cleanUp();
      resolve(Buffer.concat(chunks));
    };
    const onError = (error: Error) => {
      cleanUp();
      reject(error);
    };
    const cleanUp = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}
