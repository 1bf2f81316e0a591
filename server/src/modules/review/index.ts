// The review feature as other features see it (conventions.md 14): they import from here, never its files.
export { ReviewService } from './review.service.js';
export { NotificationService, type NotificationFields } from './notification.service.js';
export { PreCheckService } from './pre-checks/pre-checks.service.js';
// GraphQL field types of App (reviewDecisions, preChecks).
export { ReviewDecision } from './review-decision.entity.js';
export { AppPreCheck } from './pre-checks/pre-check.entity.js';
