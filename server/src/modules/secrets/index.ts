// The secrets feature as other features see it (conventions.md 14): they import from here, never its files.
export { SecretsService } from './secrets.service.js';
// A GraphQL field type of App (clientSecretAudit).
export { SecretAuditEntry } from './secret-audit.entity.js';
// The sealed signing secrets, as webhooks reads them to sign a request (and opens them itself).
export { SEALED_SECRETS, sealedSecretsOf, type SealedSecrets } from './sealed-secrets.js';

// What the wiring (app/) builds the server from: the resolvers and the tables' entities.
export { SecretsResolver } from './secrets.resolver.js';
export { AppSecretFieldsResolver } from './app-secret-fields.resolver.js';
export { StoredClientSecret } from './client-secret.entity.js';
