import { Field, ID, ObjectType } from 'type-graphql';
import { Column, CreateDateColumn, Entity, Index, PrimaryColumn } from 'typeorm';

/** An integrator's API token: acts for its owner, limited to its scopes. Only the hash is stored. */
@ObjectType()
@Entity('api_tokens')
export class ApiToken {
  @Field(() => ID)
  @PrimaryColumn({ type: 'text' })
  id: string;

  @Index('idx_api_tokens_owner_id')
  @Column({ type: 'text', name: 'owner_id' })
  ownerId: string;

  @Field()
  @Column({ type: 'text' })
  name: string;

  @Field(() => [String])
  @Column({ type: 'text', array: true })
  scopes: string[];

  @Index('idx_api_tokens_token_hash', { unique: true })
  @Column({ type: 'text', name: 'token_hash' })
  tokenHash: string;

  /** The first characters of the token, so its owner can tell tokens apart without the secret part. */
  @Field()
  @Column({ type: 'text', name: 'token_prefix' })
  tokenPrefix: string;

  @Field()
  @CreateDateColumn({ type: 'timestamptz', name: 'created_at' })
  createdAt: Date;

  @Field()
  @Column({ type: 'timestamptz', name: 'expires_at' })
  expiresAt: Date;

  @Field(() => Date, { nullable: true })
  @Column({ type: 'timestamptz', name: 'last_used_at', nullable: true })
  lastUsedAt: Date | null;

  @Field(() => Date, { nullable: true })
  @Column({ type: 'timestamptz', name: 'revoked_at', nullable: true })
  revokedAt: Date | null;
}
