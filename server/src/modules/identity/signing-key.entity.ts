import { Column, Entity, PrimaryColumn } from 'typeorm';

/** An ES256 key that signs app session tokens; the private half is sealed like client secrets. */
@Entity('session_signing_keys')
export class SigningKey {
  @PrimaryColumn({ type: 'text' })
  kid: string;

  /** The public JWK, published at /.well-known/jwks.json. */
  @Column({ type: 'jsonb', name: 'public_jwk' })
  publicJwk: Record<string, unknown>;

  @Column({ type: 'text', name: 'encryption_key_id' })
  encryptionKeyId: string;

  /** The private JWK as JSON, sealed with AES-256-GCM (additional data: the kid). */
  @Column({ type: 'bytea', name: 'sealed_private_jwk' })
  sealedPrivateJwk: Buffer;

  @Column({ type: 'timestamptz', name: 'created_at' })
  createdAt: Date;

  /** Set when a newer key takes over signing; the key stays published until tokens it signed have expired. */
  @Column({ type: 'timestamptz', name: 'superseded_at', nullable: true })
  supersededAt: Date | null;
}
