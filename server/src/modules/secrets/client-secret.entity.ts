import { Column, Entity, PrimaryColumn } from 'typeorm';

/** An app's client secret, encrypted (AES-256-GCM). Never a GraphQL type: see ClientSecret. */
@Entity('client_secrets')
export class StoredClientSecret {
  @PrimaryColumn({ type: 'text', name: 'app_id' })
  appId: string;

  /** Which encryption key sealed the ciphertext, so keys can be rotated. */
  @Column({ type: 'text', name: 'key_id' })
  keyId: string;

  /** iv (12 bytes) | auth tag (16 bytes) | ciphertext, with the app id as additional data. */
  @Column({ type: 'bytea' })
  ciphertext: Buffer;

  @Column({ type: 'timestamptz', name: 'created_at' })
  createdAt: Date;

  /**
   * The secret a rotation replaced, sealed like the current one, while its overlap runs: it keeps
   * signing beside the new one (webhook-signature) and alone in X-Platform-Signature until
   * previousValidUntil, so receivers can be redeployed without a failed delivery. Null outside an overlap.
   */
  @Column({ type: 'text', name: 'previous_key_id', nullable: true })
  previousKeyId: string | null;

  @Column({ type: 'bytea', name: 'previous_ciphertext', nullable: true })
  previousCiphertext: Buffer | null;

  /** When the overlap ends on its own; compared with now wherever a secret is used, so no job ends it. */
  @Column({ type: 'timestamptz', name: 'previous_valid_until', nullable: true })
  previousValidUntil: Date | null;
}
