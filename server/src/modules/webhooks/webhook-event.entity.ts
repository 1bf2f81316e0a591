import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * What happened, once: the body signed and sent, byte for byte, on every attempt of its delivery. Only
 * the id and the body (migration 1796000026500): the event's type, app, user and purchase are fields of
 * the body (all but the user are columns of its delivery too); its time is the id's (a ULID) and the body's timestamp.
 */
@Entity('webhook_events')
export class WebhookEvent {
  /** `evt_` + ULID */
  @PrimaryColumn({ type: 'text' })
  id: string;

  /** The exact JSON body; text, not jsonb, so the bytes never change. */
  @Column({ type: 'text' })
  payload: string;
}
