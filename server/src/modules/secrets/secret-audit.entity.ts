import { Field, ID, ObjectType, registerEnumType } from 'type-graphql';
import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** ClientSecretAuditEntry.action: what the service writes and what the API shows. */
export enum SecretAuditAction {
  REVEAL = 'REVEAL',
  ROTATE = 'ROTATE',
  FINISH_ROTATION = 'FINISH_ROTATION',
}
registerEnumType(SecretAuditAction, {
  name: 'SecretAuditAction',
  description: 'What was done with a client secret',
  valuesConfig: {
    REVEAL: { description: 'revealClientSecret showed the secret' },
    ROTATE: { description: 'rotateClientSecret replaced the secret' },
    FINISH_ROTATION: { description: 'finishClientSecretRotation ended an overlap: the replaced secret stopped signing' },
  },
});

/** Who revealed or rotated an app's client secret, and when. */
@ObjectType('ClientSecretAuditEntry', { description: 'One reveal or rotation of an app’s client secret: who, when, from where' })
@Entity('client_secret_audit')
@Index('idx_client_secret_audit_app', ['appId', 'at'])
export class SecretAuditEntry {
  @Field(() => ID, { description: 'aud_<ULID>' })
  @PrimaryColumn({ type: 'text' })
  id: string;

  @Field(() => ID, { description: 'The app whose secret it was (app_<ULID>)' })
  @Column({ type: 'text', name: 'app_id' })
  appId: string;

  @Field(() => ID, { description: 'The user id of who did it' })
  @Column({ type: 'text', name: 'actor_id' })
  actorId: string;

  @Field(() => SecretAuditAction, { description: 'REVEAL, ROTATE or FINISH_ROTATION' })
  @Column({ type: 'text' })
  action: SecretAuditAction;

  @Field(() => String, { nullable: true, description: 'The client IP address of the request; null when unknown' })
  @Column({ type: 'text', name: 'ip_address', nullable: true })
  ipAddress: string | null;

  @Field({ description: 'When it happened' })
  @Column({ type: 'timestamptz' })
  at: Date;
}
