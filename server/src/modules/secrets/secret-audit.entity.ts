import { Field, ID, ObjectType } from 'type-graphql';
import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** Who revealed or rotated an app's client secret, and when. */
@ObjectType('ClientSecretAuditEntry')
@Entity('client_secret_audit')
@Index('idx_client_secret_audit_app', ['appId', 'at'])
export class SecretAuditEntry {
  @Field(() => ID)
  @PrimaryColumn({ type: 'text' })
  id: string;

  @Field(() => ID)
  @Column({ type: 'text', name: 'app_id' })
  appId: string;

  @Field(() => ID)
  @Column({ type: 'text', name: 'actor_id' })
  actorId: string;

  /** REVEAL or ROTATE */
  @Field()
  @Column({ type: 'text' })
  action: string;

  @Field(() => String, { nullable: true })
  @Column({ type: 'text', name: 'ip_address', nullable: true })
  ipAddress: string | null;

  @Field()
  @Column({ type: 'timestamptz' })
  at: Date;
}
