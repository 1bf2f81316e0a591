import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { EncryptionKey } from '../config.js';

const IV_BYTES = 12;
const TAG_BYTES = 16;

/** `whsec_` + base64 of 32 random bytes, as the Standard Webhooks libraries expect. */
export const generateClientSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

/**
 * AES-256-GCM with the app id as additional authenticated data: a ciphertext copied onto another
 * app's row does not decrypt, so a database write alone cannot swap secrets between apps.
 */
export function sealSecret(secret: string, appId: string, key: EncryptionKey): { keyId: string; ciphertext: Buffer } {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key.key, iv);
  cipher.setAAD(Buffer.from(appId, 'utf8'));
  const body = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return { keyId: key.id, ciphertext: Buffer.concat([iv, cipher.getAuthTag(), body]) };
}

export function openSecret(sealed: { keyId: string; ciphertext: Buffer }, appId: string, keys: EncryptionKey[]): string {
  const key = keys.find((k) => k.id === sealed.keyId);
  if (!key) throw new Error(`client secret of ${appId} is sealed with key ${sealed.keyId}, which is not configured (SECRET_ENCRYPTION_KEY / SECRET_ENCRYPTION_KEYS_PREVIOUS)`);
  const iv = sealed.ciphertext.subarray(0, IV_BYTES);
  const tag = sealed.ciphertext.subarray(IV_BYTES, IV_BYTES + TAG_BYTES);
  const decipher = createDecipheriv('aes-256-gcm', key.key, iv);
  decipher.setAAD(Buffer.from(appId, 'utf8'));
  decipher.setAuthTag(tag);
  return Buffer.concat([decipher.update(sealed.ciphertext.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
}
