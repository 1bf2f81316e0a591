import express, { type ErrorRequestHandler } from 'express';
import { describe, expect, it } from 'vitest';
import { expressWebhookHandler } from '../src/server/index.js';
import { startServer } from './support/http-server.js';
import { recordingListener } from './support/recording-listener.js';
import { webhookReceiverCases } from './support/webhook-receiver-cases.js';
import { deliveryHeaders, eventBody, newClientSecret } from './support/webhook-fixtures.js';

describe('expressWebhookHandler mounted after express.raw', () => {
  webhookReceiverCases(async (options) => {
    const app = express();
    app.post('/webhooks/plaza', express.raw({ type: 'application/json' }), expressWebhookHandler(options));
    const server = await startServer(app);
    return { ...server, webhookUrl: `${server.url}/webhooks/plaza` };
  });
});

describe('expressWebhookHandler with no body parser', () => {
  webhookReceiverCases(async (options) => {
    const app = express();
    app.post('/webhooks/plaza', expressWebhookHandler(options));
    const server = await startServer(app);
    return { ...server, webhookUrl: `${server.url}/webhooks/plaza` };
  });
});

describe('expressWebhookHandler behind express.json()', () => {
  it('refuses to run on a parsed body, with an error that says how to mount it', async () => {
    const clientSecret = newClientSecret();
    const { onEvent, started } = recordingListener();
    const errors: string[] = [];
    const captureError: ErrorRequestHandler = (error: Error, _req, res, _next) => {
      errors.push(error.message);
      res.status(500).type('text/plain').send('misconfigured');
    };
    const app = express();
    app.use(express.json());
    app.post('/webhooks/plaza', expressWebhookHandler({ clientSecret, onEvent }));
    app.use(captureError);
    const server = await startServer(app);

    const body = eventBody();
    const response = await fetch(`${server.url}/webhooks/plaza`, { method: 'POST', body, headers: deliveryHeaders(body, clientSecret) });
    await server.close();

    expect(response.status).toBe(500);
    expect(errors).toEqual([expect.stringContaining("express.raw({ type: 'application/json' })")]);
    expect(started).toHaveLength(0);
  });
});
