import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { createWebhookHandler } from '../src/server/index.js';
import { startServer } from './support/http-server.js';
import { recordingListener } from './support/recording-listener.js';
import { webhookReceiverCases } from './support/webhook-receiver-cases.js';
import { deliveryHeaders, eventBody, newClientSecret } from './support/webhook-fixtures.js';

describe('createWebhookHandler on node:http', () => {
  webhookReceiverCases(async (options) => {
    const server = await startServer(createWebhookHandler(options));
    return { ...server, webhookUrl: `${server.url}/webhooks/plaza` };
  });

  it('answers 405 with Allow: POST to other methods', async () => {
    const { onEvent } = recordingListener();
    const server = await startServer(createWebhookHandler({ clientSecret: newClientSecret(), onEvent }));
    const response = await fetch(server.url, { method: 'PUT', body: '{}' });
    await server.close();
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
  });

  it('answers 413 to a chunked body that grows past the limit, without a Content-Length to go by', async () => {
    const clientSecret = newClientSecret();
    const { onEvent, started } = recordingListener();
    const server = await startServer(createWebhookHandler({ clientSecret, onEvent, maxBodyBytes: 1024 }));
    const body = eventBody({ user_id: 'x'.repeat(4096) });

    const status = await new Promise<number>((resolve, reject) => {
      const req = request(`${server.url}/`, { method: 'POST', headers: deliveryHeaders(body, clientSecret) }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      // Several writes without Content-Length: the body arrives chunked.
      for (let offset = 0; offset < body.length; offset += 512) req.write(body.slice(offset, offset + 512));
      req.end();
    });
    await server.close();

    expect(status).toBe(413);
    expect(started).toHaveLength(0);
  });

  it('refuses to start without a client secret or onEvent', () => {
    expect(() => createWebhookHandler({ clientSecret: '', onEvent: () => undefined })).toThrow(/clientSecret/);
    expect(() => createWebhookHandler({ clientSecret: newClientSecret(), onEvent: undefined as never })).toThrow(/onEvent/);
  });
});
