import type { IncomingMessage, ServerResponse } from 'node:http';
import { answerThenProcess, receiveFromStream, sendText } from './node-handler.js';
import { DEFAULT_MAX_BODY_BYTES } from './raw-body.js';
import { type WebhookHandlerOptions, createWebhookReceiver, errorReporter } from './webhook-receiver.js';

/** What the middleware needs from express, so the types do not depend on `@types/express`. */
export type ExpressLikeRequest = IncomingMessage & { body?: unknown; _body?: boolean };
export type ExpressLikeNext = (error?: unknown) => void;

export const PARSED_BODY_MESSAGE =
  'The webhook body was already parsed by another body parser (express.json()?), so its signature cannot be checked. ' +
  "Mount the webhook route with express.raw({ type: 'application/json' }), before any JSON parser.";

/**
 * Express middleware for Plaza webhooks. Mount it with `express.raw({ type: 'application/json' })`
 * (or with no body parser at all: it then reads the stream itself). A JSON body parser must not run
 * first: the signature covers the exact bytes, which parsing loses; the middleware refuses with an
 * error passed to `next` rather than accept every webhook as unsigned.
 *
 *     app.post('/webhooks/plaza', express.raw({ type: 'application/json' }), expressWebhookHandler({ clientSecret, onEvent }));
 */
export function expressWebhookHandler(options: WebhookHandlerOptions): (req: ExpressLikeRequest, res: ServerResponse, next: ExpressLikeNext) => void {
  const receive = createWebhookReceiver(options);
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;

  return (req, res, next) => {
    const fail = (error: unknown) => {
      if (res.headersSent) errorReporter(options)(error, undefined);
      else next(error);
    };
    if (req.method !== 'POST') {
      sendText(res, 405, 'Method not allowed; webhooks are POSTed', { allow: 'POST' });
      return;
    }
    if (Buffer.isBuffer(req.body)) {
      if (req.body.length > maxBodyBytes) {
        sendText(res, 413, 'Payload too large');
        return;
      }
      receive(req.body, req.headers).then((outcome) => answerThenProcess(res, outcome), fail);
      return;
    }
    // body-parser marks what it consumed; a consumed stream with a non-Buffer body has lost the bytes.
    if (req._body || req.readableEnded) {
      next(new Error(PARSED_BODY_MESSAGE));
      return;
    }
    receiveFromStream(req, res, receive, maxBodyBytes).catch(fail);
  };
}
