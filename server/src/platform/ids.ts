import { ulid } from 'ulid';
import { randomBytes } from 'node:crypto';

/** Prefixed ULIDs: sortable by creation time, and the prefix says what an id names. */
export const newId = {
  app: () => `app_${ulid()}`,
  reviewDecision: () => `rvw_${ulid()}`,
  notification: () => `ntf_${ulid()}`,
  apiToken: () => `tok_${ulid()}`,
  session: () => `ses_${ulid()}`,
  secretAudit: () => `aud_${ulid()}`,
};

/** A credential's visible value: a prefix saying what it is, then 32 random bytes. */
export const newCredential = (prefix: 'plz_s_' | 'plz_at_') => `${prefix}${randomBytes(32).toString('base64url')}`;

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** `APP-<unix ms>-<6 Crockford base32 characters>` (decisions.md); uniqueness is enforced by the database. */
export function newPurchaseId(now = Date.now()): string {
  const bytes = randomBytes(6);
  let suffix = '';
  for (const byte of bytes) suffix += CROCKFORD[byte & 31];
  return `APP-${now}-${suffix}`;
}

export const newWebhookId = {
  event: () => `evt_${ulid()}`,
  delivery: () => `dlv_${ulid()}`,
};
