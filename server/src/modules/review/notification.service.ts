import type { DataSource, EntityManager } from 'typeorm';
import { newId } from '../../platform/ids.js';
import { notFound } from '../../platform/errors.js';
import { readPage, toConnection, type Connection, type PageArgs } from '../../platform/connection.js';
import { Topic, type PostgresPubSub } from '../../platform/pubsub.js';
import { Notification } from './notification.entity.js';

/** What a notification says: its English message and the facts it was written from (see Notification). */
export type NotificationFields = { kind: string; message: string; appId: string | null } & Partial<
  Pick<Notification, 'appName' | 'reasons' | 'note' | 'since' | 'lastError' | 'failedDeliveries'>
>;

const NO_FACTS = { appName: null, reasons: null, note: null, since: null, lastError: null, failedDeliveries: null };

export class NotificationService {
  constructor(
    private readonly db: DataSource,
    private readonly pubSub: PostgresPubSub,
  ) {}

  /** Records a notification in the caller's transaction; subscribers hear of it when that commits. */
  async notify(manager: EntityManager, userId: string, fields: NotificationFields): Promise<Notification> {
    const notification = manager.create(Notification, { id: newId.notification(), userId, createdAt: new Date(), readAt: null, ...NO_FACTS, ...fields });
    await manager.insert(Notification, notification);
    await this.pubSub.publishIn(manager, Topic.NOTIFICATION_ADDED, userId, notification);
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
