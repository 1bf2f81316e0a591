// The identity feature as other features see it (conventions.md 14): they import from here, never its files.
export { Account } from './account.entity.js';
export { IdentityService } from './identity.service.js';
export { SessionTokenService } from './session-tokens.service.js';
