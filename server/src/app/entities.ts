import { Account } from '../modules/identity/account.entity.js';
import { ApiToken } from '../modules/identity/api-token.entity.js';
import { OidcLogin } from '../modules/identity/oidc-login.entity.js';
import { Session } from '../modules/identity/session.entity.js';
import { App } from '../modules/apps/app.entity.js';
import { Notification } from '../modules/review/notification.entity.js';
import { ReviewDecision } from '../modules/review/review-decision.entity.js';
import { StoredClientSecret } from '../modules/secrets/client-secret.entity.js';
import { SecretAuditEntry } from '../modules/secrets/secret-audit.entity.js';
import { DeliveryAttempt } from '../modules/webhooks/delivery-attempt.entity.js';
import { WebhookDelivery } from '../modules/webhooks/webhook-delivery.entity.js';
import { WebhookEvent } from '../modules/webhooks/webhook-event.entity.js';
import { WebhookHealth } from '../modules/webhooks/webhook-health.entity.js';
import { Installation, PointMovement, Purchase, RevenueEntry } from '../modules/marketplace/marketplace.entities.js';
import { SigningKey } from '../modules/identity/signing-key.entity.js';
import { AppPreCheck } from '../modules/review/pre-checks/pre-check.entity.js';

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
  WebhookHealth,
  Purchase,
  Installation,
  RevenueEntry,
  PointMovement,
  SigningKey,
  AppPreCheck,
];

/** Plaza's database: every feature's entities, migrated to the current schema. */
export const connectPlazaDatabase = (url: string, poolSize?: number) => connectDatabase(url, ENTITIES, poolSize);
