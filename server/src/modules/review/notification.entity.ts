import { Field, ID, ObjectType } from 'type-graphql';
import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

@ObjectType({ description: 'A message to you in the portal, e.g. a review decision on one of your apps' })
@Entity('notifications')
@Index('idx_notifications_user', ['userId', 'id'])
export class Notification {
  @Field(() => ID, { description: 'ntf_<ULID>' })
  @PrimaryColumn({ type: 'text' })
  id: string;

  @Column({ type: 'text', name: 'user_id' })
  userId: string;

  /** APP_APPROVED or APP_REJECTED today; a string so new kinds need no schema change. */
  @Field({ description: 'What happened, e.g. APP_APPROVED or APP_REJECTED; a string, so new kinds can appear' })
  @Column({ type: 'text' })
  kind: string;

  @Field({ description: 'The text to show, written for people' })
  @Column({ type: 'text' })
  message: string;

  @Field(() => ID, { nullable: true, description: 'The app it is about; null when it is about no app' })
  @Column({ type: 'text', name: 'app_id', nullable: true })
  appId: string | null;

  @Field({ description: 'When it was sent' })
  @Column({ type: 'timestamptz', name: 'created_at' })
  createdAt: Date;

  @Field(() => Date, { nullable: true, description: 'When you marked it read; null while unread' })
  @Column({ type: 'timestamptz', name: 'read_at', nullable: true })
  readAt: Date | null;
}
