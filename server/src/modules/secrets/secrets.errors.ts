import { ErrorCode, PlazaError } from '../../platform/errors.js';

/** `extensions.reason` of the secrets' refusals: stable values clients branch on (the messages are for people). */
export const SecretsErrorReason = {
  ROTATION_IN_PROGRESS: 'ROTATION_IN_PROGRESS',
} as const;

/**
 * A second rotation while an overlap runs would leave receivers that followed the procedure
 * ([new, old] deployed) with a secret they have never seen in X-Platform-Signature, so it is refused;
 * `previousValidUntil` (ISO) lets a client say, in its own words, until when.
 */
export function rotationInProgress(previousValidUntil: Date): PlazaError {
  const until = previousValidUntil.toISOString();
  const error = new PlazaError(
    ErrorCode.CONFLICT,
    `A rotation of this client secret is already in progress until ${until}: finish it first (finishClientSecretRotation), or rotate with overlapHours: 0 if the secret leaked (every older secret stops at once)`,
    undefined,
    SecretsErrorReason.ROTATION_IN_PROGRESS,
  );
  Object.assign(error.extensions, { previousValidUntil: until });
  return error;
}
