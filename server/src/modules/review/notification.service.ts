import type { DataSource, EntityManager } from 'typeorm';
import { newId } from '../../platform/ids.js';
import { notFound } from '../../platform/errors.js';
import { readPage, toConnection, type Connection, type PageArgs } from '../../platform/connection.js';
import { Topic, type PostgresPubSub } from '../../platform/pubsub.js';
import { Notification } from './notification.entity.js';

/** What a notification says: its English message and the facts it was written from (see Notification). */
export type NotificationFields = { kind: string; message: string; appId: string | null } & Partial<
  Pick<Notification, 'appName' | 'reasons' | 'note' | 'since' | 'lastError' | 'failedDeliveries' | 'points'>
>;

/** What NOTIFICATION_ADDED carries: the notification, or its id when it is too large for NOTIFY (under 8000 bytes with the envelope). */
export type LiveNotification = Notification | { id: string; userId: string; byId: true };
const INLINE_PAYLOAD_BYTES = 6000;

const NO_FACTS = { appName: null, reasons: null, note: null, since: null, lastError: null, failedDeliveries: null, points: null };

export class NotificationService {
  constructor(
    private readonly db: DataSource,
    private readonly pubSub: PostgresPubSub,
  ) {}

  /** Records a notification in the caller's transaction; subscribers hear of it when that commits. */
  async notify(manager: EntityManager, userId: string, fields: NotificationFields): Promise<Notification> {
    const notification = manager.create(Notification, { id: newId.notification(), userId, createdAt: new Date(), readAt: null, ...NO_FACTS, ...fields });
    await manager.insert(Notification, notification);
    // A long note is in the message and beside it: past what NOTIFY carries, subscribers read the row instead.
    const inline = Buffer.byteLength(JSON.stringify(notification)) <= INLINE_PAYLOAD_BYTES;
    const payload: LiveNotification = inline ? notification : { id: notification.id, userId, byId: true };
    await this.pubSub.publishIn(manager, Topic.NOTIFICATION_ADDED, userId, payload);
    return notification;
  }

  /** One of the user's notifications, as a subscriber told of it by id reads it (after its commit). */
  async find(userId: string, id: string): Promise<Notification> {
    const notification = await this.db.getRepository(Notification).findOneBy({ id, userId });
    if (!notification) throw notFound('Notification');
    return notification;
  }

  /** Newest first. */
  async list(userId: string, args: PageArgs): Promise<Connection<Notification>> {
    const page = readPage(args, ['string']);
    const query = this.db.getRepository(Notification).createQueryBuilder('n').where('n.user_id = :userId', { userId });
    if (page.after) query.andWhere('n.id < :after', { after: page.after[0] });
    if (page.before) query.andWhere('n.id > :before', { before: page.before[0] });
    const rows = await query
      .orderBy('n.id', page.backward ? 'ASC' : 'DESC')
      .take(page.limit + 1)
      .getMany();
    return toConnection(rows, page, (n) => [n.id]);
  }

  async markRead(userId: string, id: string): Promise<Notification> {
    const repository = this.db.getRepository(Notification);
    const notification = await repository.findOneBy({ id, userId });
    if (!notification) throw notFound('Notification');
    if (!notification.readAt) {
      notification.readAt = new Date();
      await repository.update({ id }, { readAt: notification.readAt });
    }
    return notification;
  }
}
