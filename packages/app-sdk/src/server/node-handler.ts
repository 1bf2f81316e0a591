import type { IncomingMessage, ServerResponse } from 'node:http';
import { BodyTooLargeError, DEFAULT_MAX_BODY_BYTES, readRawBody } from './raw-body.js';
import { type WebhookHandlerOptions, type WebhookOutcome, type WebhookReceiver, createWebhookReceiver, errorReporter } from './webhook-receiver.js';

export function sendText(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  if (res.headersSent) return;
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', ...headers });
  res.end(message);
}

/** Answers first, then processes: the platform waits for the answer, not for your work. */
export function answerThenProcess(res: ServerResponse, { status, message, process }: WebhookOutcome): void {
  sendText(res, status, message);
  // Never rejects: the receiver's process() hands every failure to onError.
  if (process) setImmediate(() => void process());
}

export async function receiveFromStream(req: IncomingMessage, res: ServerResponse, receive: WebhookReceiver, maxBodyBytes: number): Promise<void> {
  let rawBody: Buffer;
  try {
    rawBody = await readRawBody(req, maxBodyBytes);
  } catch (error) {
    if (error instanceof BodyTooLargeError) sendText(res, 413, 'Payload too large', { connection: 'close' });
    else sendText(res, 400, 'Could not read the request body');
    return;
  }
  answerThenProcess(res, await receive(rawBody, req.headers));
}

/**
 * A `node:http` request listener that receives Plaza webhooks: verifies the signature on the raw
 * bytes (401 text/plain on mismatch, nothing processed), answers 200 at once, then runs `onEvent`,
 * at most once per (event, purchase_id).
 *
 *     http.createServer(createWebhookHandler({ clientSecret, onEvent })).listen(3000);
 */
export function createWebhookHandler(options: WebhookHandlerOptions): (req: IncomingMessage, res: ServerResponse) => void {
  const receive = createWebhookReceiver(options);
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  return (req, res) => {
    if (req.method !== 'POST') {
      req.resume();
      sendText(res, 405, 'Method not allowed; webhooks are POSTed', { allow: 'POST' });
      return;
    }
    receiveFromStream(req, res, receive, maxBodyBytes).catch((error: unknown) => {
      errorReporter(options)(error, undefined);
      sendText(res, 500, 'Internal error');
    });
  };
}
