import { Field, ID, Int, ObjectType } from 'type-graphql';
import { Check, Column, CreateDateColumn, Entity, Index, PrimaryColumn } from 'typeorm';
import { int64Column } from '../../platform/int64.js';

/** A platform account. Every account is a developer and a user; the viewer's own view of it. */
@ObjectType('Viewer')
@Entity('accounts')
// The last line of defence for "not enough points": no statement can leave a balance below zero.
@Check('chk_accounts_points_not_negative', '"points" >= 0')
export class Account {
  /** The identity provider's `sub`; the development provider derives it from the e-mail. */
  @Field(() => ID)
  @PrimaryColumn({ type: 'text' })
  id: string;

  @Field()
  @Index('idx_accounts_email')
  @Column({ type: 'text' })
  email: string;

  /** Roles granted by an admin, on top of the ones configuration grants by e-mail. */
  @Column({ type: 'text', array: true, name: 'granted_roles', default: () => "'{}'" })
  grantedRoles: string[];

  /** 64-bit; the contract's `points: Int` answers up to 2^31 - 1 and `pointsExact` any balance (identity.resolver.ts). */
  @Field(() => Int)
  @Column({ type: 'bigint', default: 0, transformer: int64Column })
  points: number;

  /** Passed to launched apps in INIT_SESSION: en or vi. */
  @Field()
  @Column({ type: 'text', default: 'en' })
  locale: string;

  /** Passed to launched apps in INIT_SESSION: light or dark. */
  @Field()
  @Column({ type: 'text', default: 'light' })
  theme: string;

  @Column({ type: 'text', name: 'identity_provider' })
  identityProvider: 'dev' | 'oidc';

  @CreateDateColumn({ type: 'timestamptz', name: 'created_at' })
  createdAt: Date;

  @Column({ type: 'timestamptz', name: 'last_sign_in_at' })
  lastSignInAt: Date;
}
