import { Field, ID, ObjectType } from 'type-graphql';
import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

@ObjectType()
@Entity('notifications')
@Index('idx_notifications_user', ['userId', 'id'])
export class Notification {
  @Field(() => ID)
  @PrimaryColumn({ type: 'text' })
  id: string;

  @Column({ type: 'text', name: 'user_id' })
  userId: string;

  /** APP_APPROVED or APP_REJECTED today; a string so new kinds need no schema change. */
  @Field()
  @Column({ type: 'text' })
  kind: string;

  @Field()
  @Column({ type: 'text' })
  message: string;

  @Field(() => ID, { nullable: true })
  @Column({ type: 'text', name: 'app_id', nullable: true })
  appId: string | null;

  @Field()
  @Column({ type: 'timestamptz', name: 'created_at' })
  createdAt: Date;

  @Field(() => Date, { nullable: true })
  @Column({ type: 'timestamptz', name: 'read_at', nullable: true })
  readAt: Date | null;
}
