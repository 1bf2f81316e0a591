import { Field, ID, ObjectType } from 'type-graphql';
import { Column, CreateDateColumn, Entity, Index, PrimaryColumn } from 'typeorm';

/** An integrator's API token: acts for its owner, limited to its scopes. Only the hash is stored. */
@ObjectType({ description: 'One of your API tokens; its value is never shown again after creation' })
@Entity('api_tokens')
export class ApiToken {
  @Field(() => ID, { description: 'tok_<ULID>' })
  @PrimaryColumn({ type: 'text' })
  id: string;

  @Index('idx_api_tokens_owner_id')
  @Column({ type: 'text', name: 'owner_id' })
  ownerId: string;

  @Field({ description: 'What the token is for, as given at creation' })
  @Column({ type: 'text' })
  name: string;

  @Field(() => [String], { description: 'What the token may do: "deliveries:read", "deliveries:write", "apps:read"' })
  @Column({ type: 'text', array: true })
  scopes: string[];

  @Index('idx_api_tokens_token_hash', { unique: true })
  @Column({ type: 'text', name: 'token_hash' })
  tokenHash: string;

  /** The first characters of the token, so its owner can tell tokens apart without the secret part. */
  @Field({ description: 'The first characters of the token (plz_at_ and 4 more), to tell tokens apart' })
  @Column({ type: 'text', name: 'token_prefix' })
  tokenPrefix: string;

  @Field({ description: 'When the token was created' })
  @CreateDateColumn({ type: 'timestamptz', name: 'created_at' })
  createdAt: Date;

  @Field({ description: 'After this time the token is refused' })
  @Column({ type: 'timestamptz', name: 'expires_at' })
  expiresAt: Date;

  @Field(() => Date, { nullable: true, description: 'When the token last authenticated a request (to the minute); null if never' })
  @Column({ type: 'timestamptz', name: 'last_used_at', nullable: true })
  lastUsedAt: Date | null;

  @Field(() => Date, { nullable: true, description: 'When the token was revoked; null while it is usable' })
  @Column({ type: 'timestamptz', name: 'revoked_at', nullable: true })
  revokedAt: Date | null;
}
