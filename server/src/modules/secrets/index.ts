// The secrets feature as other features see it (conventions.md 14): they import from here, never its files.
export { SecretsService } from './secrets.service.js';
// A GraphQL field type of App (clientSecretAudit).
export { SecretAuditEntry } from './secret-audit.entity.js';
