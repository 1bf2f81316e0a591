// The review feature as other features see it (conventions.md 14): they import from here, never its files.
export { ReviewService } from './review.service.js';
export { NotificationService, type NotificationFields } from './notification.service.js';
export { PreCheckService } from './pre-checks/pre-checks.service.js';
// GraphQL field types of App (reviewDecisions, preChecks).
export { ReviewDecision } from './review-decision.entity.js';
export { AppPreCheck } from './pre-checks/pre-check.entity.js';

// What the wiring (app/) builds the server from: the resolvers, the pre-checks' job and wake-up channel, the tables' entities.
export { ReviewResolver } from './review.resolver.js';
export { AppReviewFieldsResolver } from './app-review-fields.resolver.js';
export { AppDeveloperResolver } from './app-developer.resolver.js';
export { PreCheckRunner } from './pre-checks/pre-check-runner.js';
export { PRE_CHECKS_DUE_CHANNEL } from './pre-checks/pre-checks.service.js';
export { Notification } from './notification.entity.js';
