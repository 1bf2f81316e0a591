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
}
