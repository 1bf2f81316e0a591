import { Column, Entity, PrimaryColumn } from 'typeorm';

/** What happened, once: the body signed and sent, byte for byte, on every attempt of its delivery. */
@Entity('webhook_events')
export class WebhookEvent {
  /** `evt_` + ULID */
  @PrimaryColumn({ type: 'text' })
  id: string;

  /** Wire name, e.g. app.purchased */
  @Column({ type: 'text' })
  type: string;

  @Column({ type: 'text', name: 'app_id' })
  appId: string;

  @Column({ type: 'text', name: 'user_id' })
  userId: string;

  @Column({ type: 'text', name: 'purchase_id' })
  purchaseId: string;

  /** The exact JSON body; text, not jsonb, so the bytes never change. */
  @Column({ type: 'text' })
  payload: string;

  @Column({ type: 'timestamptz', name: 'created_at' })
  createdAt: Date;
}
