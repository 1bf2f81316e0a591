import { Field, ID, Int, ObjectType } from 'type-graphql';
import { Check, Column, CreateDateColumn, Entity, Index, PrimaryColumn } from 'typeorm';
import { int64Column } from '../../platform/int64.js';

/** A platform account. Every account is a developer and a user; the viewer's own view of it. */
@ObjectType('Viewer', { description: 'Your platform account as you see it; every account is a DEVELOPER and a USER' })
@Entity('accounts')
// The last line of defence for "not enough points": no statement can leave a balance below zero.
@Check('chk_accounts_points_not_negative', '"points" >= 0')
export class Account {
  /** The identity provider's `sub`; the development provider derives it from the e-mail. */
  @Field(() => ID, { description: 'The user id: the identity provider’s `sub` (the development sign-in derives it from the e-mail)' })
  @PrimaryColumn({ type: 'text' })
  id: string;

  @Field({ description: 'The e-mail address the account signs in with' })
  @Index('idx_accounts_email')
  @Column({ type: 'text' })
  email: string;

  /** Roles granted by an admin, on top of the ones configuration grants by e-mail. */
  @Column({ type: 'text', array: true, name: 'granted_roles', default: () => "'{}'" })
  grantedRoles: string[];

  /** 64-bit; the contract's `points: Int` answers up to 2^31 - 1 and `pointsExact` any balance (identity.resolver.ts). */
  @Field(() => Int, { description: 'Points balance while it fits a 32-bit Int; past that an error that points to pointsExact' })
  @Column({ type: 'bigint', default: 0, transformer: int64Column })
  points: number;

  /** Passed to launched apps in INIT_SESSION: en or vi. */
  @Field({ description: 'Preferred language passed to the apps you open: "en" (default) or "vi"' })
  @Column({ type: 'text', default: 'en' })
  locale: string;

  /** Passed to launched apps in INIT_SESSION: light or dark. */
  @Field({ description: 'Preferred theme passed to the apps you open: "light" (default) or "dark"' })
  @Column({ type: 'text', default: 'light' })
  theme: string;

  @Column({ type: 'text', name: 'identity_provider' })
  identityProvider: 'dev' | 'oidc';

  @CreateDateColumn({ type: 'timestamptz', name: 'created_at' })
  createdAt: Date;

  @Column({ type: 'timestamptz', name: 'last_sign_in_at' })
  lastSignInAt: Date;
}
