import type { EntityManager } from 'typeorm';
import { seesEveryApp, type Principal } from '../../platform/auth/principal.js';
import { notFound } from '../../platform/errors.js';
import { appErrors } from './app.errors.js';
import { App } from './app.entity.js';
import { AppStatus, NO_PAGE_DETAILS } from './app.types.js';

export const isOwner = (app: App, principal: Principal | null) => !!principal && app.ownerId === principal.userId;
export const isReviewer = (principal: Principal | null) => !!principal?.roles.has('REVIEWER');

/** Owners and reviewers see an app as it is; everyone else only its listed (approved) version, if any. */
export function viewOf(app: App, principal: Principal | null): App | null {
  if (isOwner(app, principal) || isReviewer(principal)) return app;
  if (!app.publishedListing) return null;
  return Object.assign(new App(), app, NO_PAGE_DETAILS, app.publishedListing, {
    status: AppStatus.APPROVED,
    webhookUrl: null, // the developer's server address is theirs alone
  });
}

/** One app as it is, optionally locked in the caller's transaction (`manager`); null when there is none. */
export function findApp(manager: EntityManager, appId: string, lock?: 'pessimistic_read' | 'pessimistic_write'): Promise<App | null> {
  const query = manager.getRepository(App).createQueryBuilder('a').where('a.id = :appId', { appId });
  if (lock) query.setLock(lock);
  return query.getOne();
}

/** How requireOwnedApp treats those who do not own the app. */
export interface OwnedAppOptions {
  /** Admins signed in as people pass too (seesEveryApp): for reading deliveries. */
  allowAdmin?: boolean;
  /** FORBIDDEN with this message for those who may see the app but not do this; without it they get NOT_FOUND like everyone else. */
  forbiddenMessage?: string;
  /** Locks the app's row in the caller's transaction (`manager`). */
  lock?: 'pessimistic_read' | 'pessimistic_write';
}

/**
 * Find the app, check who may act on it: the owner (and, with allowAdmin, an admin) gets the app. Anyone
 * else who cannot see the app learns nothing about whether it exists (NOT_FOUND); one who can see it is
 * told no (FORBIDDEN) where the caller gives the reason. AppService.requireOwned is its face for other
 * features; SecretsService calls it in its own transaction.
 */
export async function requireOwnedApp(manager: EntityManager, principal: Principal, appId: string, options: OwnedAppOptions = {}): Promise<App> {
  const app = await findApp(manager, appId, options.lock);
  if (app && (isOwner(app, principal) || (options.allowAdmin && seesEveryApp(principal)))) return app;
  if (app && options.forbiddenMessage && viewOf(app, principal)) throw appErrors.notAppOwner(options.forbiddenMessage);
  throw notFound('App');
}
