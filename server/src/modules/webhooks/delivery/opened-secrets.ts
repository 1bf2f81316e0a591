import type { EncryptionKey } from '../../../config.js';
import { openSecret } from '../../../platform/secret-crypto.js';

/** Apps whose opened client secret a worker keeps; beyond it the least recently opened is dropped. */
const OPENED_SECRETS_MAX = 10_000;

/**
 * Opened client secrets by app, with the sealed form they came from: opening one per attempt cost
 * more than signing. A rotated secret has a new ciphertext, so it is opened again. Process memory
 * only, bounded, never logged. The sealed secret arrives with each claimed delivery (no query of its
 * own), so this opens it with the platform's secret encryption; the secrets feature keeps owning how
 * secrets are stored, rotated and revealed. The engine keeps one of these for current secrets and one
 * for the secrets a rotation replaced, so an overlap does not make the two evict each other.
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
