// The apps feature as other features see it (conventions.md 14): they import from here, never its files.
export { App } from './app.entity.js';
export { AppService, type SubmissionSteps } from './app.service.js';
export { AppStatus, Pricing, REVIEW_DUE_AFTER_MS, type Listing } from './app.types.js';
// Who may act on an app is the apps feature's rule; SecretsService (which AppService is built on) runs it in its own transaction.
export { findApp, isOwner, isReviewer, requireOwnedApp, type OwnedAppOptions } from './app-access.js';
// The apps table as other features read and write it (its owner's statements).
export {
  appIdsOwnedBy,
  appIdsOwnedByEach,
  appNamesAndOwners,
  appsOwnedBy,
  appsWithWebhookDisabled,
  disableWebhooks,
  enableWebhook,
  mirrorWebhookDestination,
  oldestPendingReview,
  type AppNameAndOwner,
} from './app-directory.js';
// The Webhook URL's shape rule, which webhook endpoints' URLs follow too.
export { IsWebhookUrl } from './app-rules.js';

// What the wiring (app/) builds the server from: the resolver, and which signed-out store reads may be answered from cache.
export { AppResolver, developerNameOf } from './app.resolver.js';
export { publicStoreRead, StoreResponseCache, type StoreReadVerdict, type StoredResponse } from './public-store-read.js';
