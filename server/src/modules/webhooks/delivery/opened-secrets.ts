import type { EncryptionKey } from '../../../config.js';
import { openSecret } from '../../../platform/secret-crypto.js';
import type { SealedSecrets } from '../../secrets/index.js';

/** Apps whose opened client secret a worker keeps; beyond it the least recently opened is dropped. */
const OPENED_SECRETS_MAX = 10_000;

/**
 * Opened client secrets by app, with the sealed form they came from: opening one per attempt cost
 * more than signing. A rotated secret has a new ciphertext, so it is opened again. Process memory
 * only, bounded, never logged. The sealed secret arrives with each claimed delivery (no query of its
 * own), so this opens it with the platform's secret encryption; the secrets feature keeps owning how
 * secrets are stored, rotated and revealed. SigningSecrets below is how webhooks uses it.
 */
export class OpenedSecrets {
  private readonly byApp = new Map<string, { keyId: string; ciphertext: Buffer; secret: string }>();

  constructor(private readonly encryptionKeys: EncryptionKey[]) {}

  open(appId: string, keyId: string, ciphertext: Buffer): string {
    const cached = this.byApp.get(appId);
    if (cached && cached.keyId === keyId && cached.ciphertext.equals(ciphertext)) return cached.secret;
    const secret = openSecret({ keyId, ciphertext }, appId, this.encryptionKeys);
    if (this.byApp.size >= OPENED_SECRETS_MAX) this.byApp.delete(this.byApp.keys().next().value!);
    this.byApp.delete(appId); // re-inserted last: the Map's order makes the first key the least recently opened
    this.byApp.set(appId, { keyId, ciphertext, secret });
    return secret;
  }
}

/**
 * The one way webhooks opens client secrets to sign a request (an attempt, or a forward for plaza listen): the
 * current secret, and the replaced one while the overlap runs at `at`. Keeps one cache for current secrets and
 * one for replaced ones, so an overlap does not make the two evict each other.
 */
export class SigningSecrets {
  private readonly current: OpenedSecrets;
  private readonly previous: OpenedSecrets;

  constructor(encryptionKeys: EncryptionKey[]) {
    this.current = new OpenedSecrets(encryptionKeys);
    this.previous = new OpenedSecrets(encryptionKeys);
  }

  /** Throws when a secret cannot be opened (a key that is not configured); the caller records why. */
  open(appId: string, sealed: SealedSecrets, at: Date): { secret: string; previousSecret: string | null } {
    const secret = this.current.open(appId, sealed.key_id, sealed.ciphertext);
    const { previous_key_id: keyId, previous_ciphertext: ciphertext, previous_valid_until: validUntil } = sealed;
    const previousSecret = keyId === null || ciphertext === null || validUntil === null || validUntil <= at ? null : this.previous.open(appId, keyId, ciphertext);
    return { secret, previousSecret };
  }
}
