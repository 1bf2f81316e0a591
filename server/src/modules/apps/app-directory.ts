import type { EntityManager } from 'typeorm';
import { queryPrepared } from '../../platform/prepared-query.js';
import { WebhookState } from '../../platform/webhook-enums.js';
import { AppStatus } from './app.types.js';

/**
 * What other features read of and write to the apps table, as statements of its owner (conventions.md 19):
 * an app's name and owner for a notice or a chart, the apps one developer owns, the review queue's oldest,
 * and the webhook state (turned DISABLED by the webhooks feature's health sweep, back by enableWebhook).
 * Each takes the caller's manager, so it runs in the caller's transaction.
 */

/** Who to tell about an app and what to call it. */
export interface AppNameAndOwner {
  id: string;
  ownerId: string;
  name: string;
}

/**
 * The ids of the apps `ownerId` owns, in no order: what a developer's Webhook Logs may read, asked on every page
 * (prepared once per connection).
 */
export async function appIdsOwnedBy(manager: EntityManager, ownerId: string): Promise<string[]> {
  const rows = await queryPrepared<{ id: string }>(manager, 'plaza_app_ids_owned_by', 'SELECT id FROM apps WHERE owner_id = $1', [ownerId]);
  return rows.map((row) => row.id);
}

/** The ids of the apps each of `ownerIds` owns (an owner of none is absent): a page of reviews asks for its developers together. */
export async function appIdsOwnedByEach(manager: EntityManager, ownerIds: readonly string[]): Promise<Map<string, string[]>> {
  const byOwner = new Map<string, string[]>();
  if (ownerIds.length === 0) return byOwner;
  const rows: { id: string; owner_id: string }[] = await manager.query('SELECT id, owner_id FROM apps WHERE owner_id = ANY($1::text[])', [ownerIds]);
  for (const row of rows) byOwner.set(row.owner_id, [...(byOwner.get(row.owner_id) ?? []), row.id]);
  return byOwner;
}

/** The apps `ownerId` owns, by name (PostgreSQL's order), with their webhook state. */
export async function appsOwnedBy(manager: EntityManager, ownerId: string): Promise<{ id: string; name: string; webhookState: WebhookState }[]> {
  const rows: { id: string; name: string; webhook_state: WebhookState }[] = await manager.query('SELECT id, name, webhook_state FROM apps WHERE owner_id = $1 ORDER BY name', [
    ownerId,
  ]);
  return rows.map((row) => ({ id: row.id, name: row.name, webhookState: row.webhook_state }));
}

/** The names and owners of `appIds` (those that exist). */
export async function appNamesAndOwners(manager: EntityManager, appIds: readonly string[]): Promise<Map<string, AppNameAndOwner>> {
  if (appIds.length === 0) return new Map();
  const rows: { id: string; owner_id: string; name: string }[] = await manager.query('SELECT id, owner_id, name FROM apps WHERE id = ANY($1::text[])', [appIds]);
  return new Map(rows.map((row) => [row.id, { id: row.id, ownerId: row.owner_id, name: row.name }]));
}

/** The oldest `limit` submissions waiting for review, oldest first. */
export async function oldestPendingReview(manager: EntityManager, limit: number): Promise<{ appId: string; name: string; submittedAt: Date }[]> {
  const rows: { id: string; name: string; submitted_at: Date }[] = await manager.query(
    'SELECT id, name, submitted_at FROM apps WHERE status = $1 ORDER BY submitted_at, id LIMIT $2',
    [AppStatus.PENDING_REVIEW, limit],
  );
  return rows.map((row) => ({ appId: row.id, name: row.name, submittedAt: row.submitted_at }));
}

/**
 * Turns the webhooks of those of `appIds` still ENABLED to DISABLED and answers them: a sweep running at the
 * same time waits on the rows and then finds them DISABLED, so each app is disabled (and told) once.
 */
export async function disableWebhooks(manager: EntityManager, appIds: readonly string[]): Promise<AppNameAndOwner[]> {
  if (appIds.length === 0) return [];
  const [rows]: [{ id: string; owner_id: string; name: string }[], number] = await manager.query(
    'UPDATE apps SET webhook_state = $2 WHERE id = ANY($1::text[]) AND webhook_state = $3 RETURNING id, owner_id, name',
    [appIds, WebhookState.DISABLED, WebhookState.ENABLED],
  );
  return rows.map((row) => ({ id: row.id, ownerId: row.owner_id, name: row.name }));
}

/** The owner's enableWebhook: the app's webhook is ENABLED again. */
export async function enableWebhook(manager: EntityManager, appId: string): Promise<void> {
  await manager.query('UPDATE apps SET webhook_state = $2 WHERE id = $1', [appId, WebhookState.ENABLED]);
}

/** The apps whose webhook is DISABLED now. */
export async function appsWithWebhookDisabled(manager: EntityManager): Promise<string[]> {
  const rows: { id: string }[] = await manager.query('SELECT id FROM apps WHERE webhook_state = $1', [WebhookState.DISABLED]);
  return rows.map((row) => row.id);
}

/**
 * The app's Webhook URL, events and webhook state as its first webhook endpoint has them: the webhooks feature
 * keeps them equal on every change of the app's endpoints. App.webhookUrl and webhookEvents read them, and a
 * previous release's workers (before endpoints) send where they say during a rolling upgrade.
 */
export async function mirrorWebhookDestination(
  manager: EntityManager,
  appId: string,
  destination: { url: string | null; events: readonly string[]; state: WebhookState },
): Promise<void> {
  await manager.query('UPDATE apps SET webhook_url = $2, webhook_events = $3, webhook_state = $4 WHERE id = $1', [appId, destination.url, destination.events, destination.state]);
}
