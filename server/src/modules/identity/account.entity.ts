import { Field, ID, Int, ObjectType } from 'type-graphql';
import { Column, CreateDateColumn, Entity, Index, PrimaryColumn } from 'typeorm';

/** A platform account. Every account is a developer and a user; the viewer's own view of it. */
@ObjectType('Viewer')
@Entity('accounts')
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

  @Field(() => Int)
  @Column({ type: 'integer', default: 0 })
  points: number;

  @Column({ type: 'text', name: 'identity_provider' })
  identityProvider: 'dev' | 'oidc';

  @CreateDateColumn({ type: 'timestamptz', name: 'created_at' })
  createdAt: Date;

  @Column({ type: 'timestamptz', name: 'last_sign_in_at' })
  lastSignInAt: Date;
}
