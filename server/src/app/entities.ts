import { Account, ApiToken, OidcLogin, Session, SigningKey } from '../modules/identity/index.js';
import { App } from '../modules/apps/index.js';
import { Notification, ReviewDecision, AppPreCheck } from '../modules/review/index.js';
import { StoredClientSecret, SecretAuditEntry } from '../modules/secrets/index.js';
import { DeliveryAttempt, WebhookDelivery, WebhookEndpoint, WebhookEndpointHealth, WebhookEvent } from '../modules/webhooks/index.js';
import { Installation, PointMovement, Purchase, RevenueEntry } from '../modules/marketplace/index.js';

import { connectDatabase } from '../platform/database.js';

/** Every feature's tables. */
export const ENTITIES = [
  Account,
  Session,
  ApiToken,
  OidcLogin,
  App,
  ReviewDecision,
  Notification,
  StoredClientSecret,
  SecretAuditEntry,
  WebhookEvent,
  WebhookDelivery,
  DeliveryAttempt,
  WebhookEndpointHealth,
  WebhookEndpoint,
  Purchase,
  Installation,
  RevenueEntry,
  PointMovement,
  SigningKey,
  AppPreCheck,
];

/** Plaza's database: every feature's entities, migrated to the current schema. */
export const connectPlazaDatabase = (url: string, poolSize?: number) => connectDatabase(url, ENTITIES, poolSize);
