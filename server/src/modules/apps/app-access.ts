import type { Principal } from '../../platform/auth/principal.js';
import { App } from './app.entity.js';
import { AppStatus } from './app.types.js';

export const isOwner = (app: App, principal: Principal | null) => !!principal && app.ownerId === principal.userId;
export const isReviewer = (principal: Principal | null) => !!principal?.roles.has('REVIEWER');

/** Owners and reviewers see an app as it is; everyone else only its listed (approved) version, if any. */
export function viewOf(app: App, principal: Principal | null): App | null {
  if (isOwner(app, principal) || isReviewer(principal)) return app;
  if (!app.publishedListing) return null;
  return Object.assign(new App(), app, app.publishedListing, {
    status: AppStatus.APPROVED,
    webhookUrl: null, // the developer's server address is theirs alone
  });
}
