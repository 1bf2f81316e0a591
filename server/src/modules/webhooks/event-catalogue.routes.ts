import { Router } from 'express';
import { WEBHOOK_EVENT_NAMES, WEBHOOK_SCHEMAS_PATH, webhookEventSchema, webhookSchemaIndex } from '@plaza/shared';
import { ErrorCode } from '../../platform/errors.js';
import { sendError } from '../../platform/http-errors.js';

/** Public documentation, the same for everyone: browsers and code generators may cache it a while. */
const CACHE = 'public, max-age=300';

/**
 * The webhook event catalogue: a JSON Schema per event's body (from @plaza/shared, the one source the
 * SDK's types and the portal use too) at `/webhooks/schemas/<event>.json`, and an index listing them at
 * `/webhooks/schemas/`. Each `$id` is the absolute URL it is served at.
 */
export function eventCatalogueRoutes(platformOrigin: string): Router {
  const router = Router();
  const index = JSON.stringify(webhookSchemaIndex(platformOrigin), null, 2);
  const schemas = new Map(WEBHOOK_EVENT_NAMES.map((event) => [`${event}.json`, JSON.stringify(webhookEventSchema(event, platformOrigin), null, 2)]));

  router.get([WEBHOOK_SCHEMAS_PATH, WEBHOOK_SCHEMAS_PATH.slice(0, -1), `${WEBHOOK_SCHEMAS_PATH}index.json`], (_req, res) => {
    res.set('cache-control', CACHE).type('application/json').send(index);
  });
  router.get(`${WEBHOOK_SCHEMAS_PATH}:file`, (req, res) => {
    const schema = schemas.get(req.params.file);
    if (!schema) {
      return sendError(res, 404, ErrorCode.NOT_FOUND, `No event schema ${req.params.file}; the catalogue has ${[...schemas.keys()].join(', ')}`);
    }
    res.set('cache-control', CACHE).type('application/schema+json').send(schema);
  });
  return router;
}
