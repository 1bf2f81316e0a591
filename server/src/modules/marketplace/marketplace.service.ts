import { QueryFailedError, type DataSource, type EntityManager } from 'typeorm';
import type { Config } from '../../config.js';
import { cursorTime, readPage, toConnection, type Connection, type PageArgs } from '../../platform/connection.js';
import { perTickLoader } from '../../platform/per-tick-loader.js';
import { badInput, PlazaError } from '../../platform/errors.js';
import { newPurchaseId, ulid } from '../../platform/ids.js';
import { toSafeInteger } from '../../platform/int64.js';
import { marketplaceErrors } from './marketplace.errors.js';
import { textProblem } from '../../platform/readable-text.js';
import { appsOwnedBy, Pricing, type App, type AppService } from '../apps/index.js';
import { EarningsSeries } from './earnings-series.queries.js';
import type { IdentityService } from '../identity/index.js';
import type { NotificationService } from '../review/index.js';
import type { Principal } from '../../platform/auth/principal.js';
import { WebhookEventType } from '../../platform/webhook-enums.js';
import { Installation, PointMovement, Purchase, PurchaseKind, RevenueEntry } from './marketplace.entities.js';
import { splitRevenue } from './revenue.js';
import type { StoreEvents } from './store-events.js';

export const PurchaseStatus = { COMPLETED: 'COMPLETED', REFUNDED: 'REFUNDED' } as const;

/** The notification kind a buyer gets when an admin refunds their purchase (Notification.kind is a string). */
export const PURCHASE_REFUNDED = 'PURCHASE_REFUNDED';

/** PostgreSQL's unique_violation: the database's word that a racing request already won. */
const isUniqueViolation = (err: unknown) => err instanceof QueryFailedError && (err.driverError as { code?: string }).code === '23505';

export class MarketplaceService {
  constructor(
    private readonly db: DataSource,
    private readonly config: Config,
    private readonly storeEvents: StoreEvents,
    private readonly apps: AppService,
    private readonly identity: IdentityService,
    private readonly notifications: NotificationService,
  ) {}

  /** What a sale at this price carries in its webhook (0 for a free app): the amounts of a test event. */
  saleAmounts(pricePoints: number | null): { amountVnd: number; developerShareVnd: number } {
    if (!pricePoints) return { amountVnd: 0, developerShareVnd: 0 };
    const { amountVnd, developerShareVnd } = splitRevenue(pricePoints, this.config.pointValueVnd);
    return { amountVnd, developerShareVnd };
  }

  /** The listed (approved) version of an app, or a clear refusal. */
  private async listedApp(manager: EntityManager, appId: string): Promise<App & { publishedListing: NonNullable<App['publishedListing']> }> {
    const app = await this.apps.findById(appId, manager);
    if (!app?.publishedListing) throw marketplaceErrors.appNotApproved();
    return app as App & { publishedListing: NonNullable<App['publishedListing']> };
  }

  /**
   * The user's completed purchase of the app. With `lock`, its row is held (FOR SHARE) until the caller's
   * transaction ends: a refund (FOR UPDATE on the same row) then waits for that transaction, or, if the
   * refund came first, PostgreSQL rereads the row after it and it no longer counts as completed.
   */
  private async completedPurchase(manager: EntityManager, appId: string, userId: string, lock?: 'pessimistic_read'): Promise<Purchase | null> {
    const query = manager.getRepository(Purchase).createQueryBuilder('p').where('p.app_id = :appId AND p.user_id = :userId AND p.kind = :kind AND p.status = :status', {
      appId,
      userId,
      kind: PurchaseKind.PURCHASE,
      status: PurchaseStatus.COMPLETED,
    });
    if (lock) query.setLock(lock);
    return query.getOne();
  }

  /** Runs `work` in one transaction, turning a lost race on a unique index into a clear CONFLICT. */
  private async inTransaction<T>(work: (manager: EntityManager) => Promise<T>, onRace: () => PlazaError): Promise<T> {
    try {
      return await this.db.transaction(work);
    } catch (err) {
      if (isUniqueViolation(err)) throw onRace();
      throw err;
    }
  }

  /** Buys a paid app: debits the points, records the purchase, the 80/20 split and `app.purchased`, all or nothing. */
  async purchase(principal: Principal, appId: string): Promise<Purchase> {
    const alreadyOwned = marketplaceErrors.alreadyBought;
    return this.inTransaction(async (manager) => {
      const app = await this.listedApp(manager, appId);
      const { pricing, pricePoints } = app.publishedListing;
      if (pricing !== Pricing.PAID || !pricePoints) throw marketplaceErrors.freeApp();
      if (await this.completedPurchase(manager, appId, principal.userId)) throw alreadyOwned();
      const split = splitRevenue(pricePoints, this.config.pointValueVnd);

      // The balance check and the debit are one statement, so two purchases can never overdraw it.
      const [debited] = await manager.query('UPDATE accounts SET points = points - $2 WHERE id = $1 AND points >= $2 RETURNING points', [principal.userId, pricePoints]);
      if (!debited?.length) {
        const balance = (await this.identity.findAccount(principal.userId, manager))?.points ?? 0;
        throw marketplaceErrors.insufficientPoints(pricePoints, balance);
      }
      const now = new Date();
      const purchase = manager.create(Purchase, {
        purchaseId: newPurchaseId(now.getTime()),
        appId,
        userId: principal.userId,
        kind: PurchaseKind.PURCHASE,
        pricePoints,
        amountVnd: split.amountVnd,
        developerShareVnd: split.developerShareVnd,
        status: PurchaseStatus.COMPLETED,
        createdAt: now,
        refundedAt: null,
        refundReason: null,
      });
      await manager.insert(Purchase, purchase);
      await manager.insert(Installation, {
        id: `ins_${ulid()}`,
        appId,
        userId: principal.userId,
        purchaseId: purchase.purchaseId,
        originalPurchaseId: purchase.purchaseId,
        installedAt: now,
        uninstalledAt: null,
      });
      await manager.insert(RevenueEntry, { purchaseId: purchase.purchaseId, appId, developerId: app.ownerId, kind: 'SALE', ...this.ledgerAmounts(split, 1), createdAt: now });
      await manager.insert(PointMovement, {
        userId: principal.userId,
        delta: -pricePoints,
        reason: 'purchase',
        purchaseId: purchase.purchaseId,
        actorId: principal.userId,
        createdAt: now,
      });
      await this.storeEvents.recordEvent(manager, {
        type: WebhookEventType.APP_PURCHASED,
        appId,
        userId: principal.userId,
        purchaseId: purchase.purchaseId,
        amountVnd: split.amountVnd,
        developerShareVnd: split.developerShareVnd,
        at: now,
      });
      return purchase;
    }, alreadyOwned);
  }

  private ledgerAmounts(split: { amountVnd: number; developerShareVnd: number }, sign: 1 | -1) {
    return { grossVnd: sign * split.amountVnd, developerShareVnd: sign * split.developerShareVnd, platformShareVnd: sign * (split.amountVnd - split.developerShareVnd) };
  }

  /**
   * Installs a free app, or puts a paid app the user already bought back in their library without
   * charging again. Either way it is an acquisition of its own: a zero-amount purchase record with its
   * own purchase_id, so (event, purchase_id) names exactly one thing that happened, which is what receivers
   * deduplicate on. A reinstall writes no ledger entry and moves no points; its installation remembers
   * the original purchase, which stays the one to refund.
   */
  async install(principal: Principal, appId: string): Promise<Installation> {
    const alreadyInstalled = marketplaceErrors.alreadyInstalled;
    return this.inTransaction(async (manager) => {
      const app = await this.listedApp(manager, appId);
      if (await this.hasActiveInstallation(manager, principal.userId, appId)) throw alreadyInstalled();
      let originalPurchaseId: string | null = null;
      if (app.publishedListing.pricing === Pricing.PAID) {
        // Locked, so a refund of it cannot commit between this read and the installation below: either
        // the refund waits and then ends this installation too, or this install sees it refunded.
        const bought = await this.completedPurchase(manager, appId, principal.userId, 'pessimistic_read');
        if (!bought) throw marketplaceErrors.paidApp(app.publishedListing.pricePoints);
        originalPurchaseId = bought.purchaseId;
      }
      const now = new Date();
      const acquisition = manager.create(Purchase, {
        purchaseId: newPurchaseId(now.getTime()),
        appId,
        userId: principal.userId,
        kind: originalPurchaseId ? PurchaseKind.REINSTALL : PurchaseKind.INSTALL,
        pricePoints: 0,
        amountVnd: 0,
        developerShareVnd: 0,
        status: PurchaseStatus.COMPLETED,
        createdAt: now,
        refundedAt: null,
        refundReason: null,
      });
      await manager.insert(Purchase, acquisition);
      const installation = manager.create(Installation, {
        id: `ins_${ulid()}`,
        appId,
        userId: principal.userId,
        purchaseId: acquisition.purchaseId,
        originalPurchaseId,
        installedAt: now,
        uninstalledAt: null,
      });
      await manager.insert(Installation, installation);
      await this.storeEvents.recordEvent(manager, {
        type: WebhookEventType.APP_INSTALLED,
        appId,
        userId: principal.userId,
        purchaseId: acquisition.purchaseId,
        amountVnd: 0,
        developerShareVnd: 0,
        at: now,
      });
      return installation;
    }, alreadyInstalled);
  }

  /** Removes an app from the user's library; a paid app stays bought and can be installed again. */
  async uninstall(principal: Principal, appId: string): Promise<Installation> {
    return this.db.transaction(async (manager) => {
      const installation = await manager
        .getRepository(Installation)
        .createQueryBuilder('i')
        .setLock('pessimistic_write')
        .where('i.app_id = :appId AND i.user_id = :userId AND i.uninstalled_at IS NULL', { appId, userId: principal.userId })
        .getOne();
      if (!installation) throw marketplaceErrors.notInLibrary();
      installation.uninstalledAt = new Date();
      await manager.update(Installation, { id: installation.id }, { uninstalledAt: installation.uninstalledAt });
      const purchase = await manager.findOneByOrFail(Purchase, { purchaseId: installation.purchaseId });
      await this.storeEvents.recordEvent(manager, {
        type: WebhookEventType.APP_UNINSTALLED,
        appId,
        userId: principal.userId,
        purchaseId: purchase.purchaseId,
        amountVnd: purchase.amountVnd,
        developerShareVnd: purchase.developerShareVnd,
        at: installation.uninstalledAt,
      });
      return installation;
    });
  }

  /** Admin: returns the points, reverses the split in the ledger, ends access, and sends `app.refunded`. */
  async refund(admin: Principal, purchaseId: string, reason: string | null): Promise<Purchase> {
    const reasonProblem = reason ? textProblem(reason, { multiline: true }) : undefined;
    if (reasonProblem) throw badInput('reason', `reason ${reasonProblem}`);
    return this.db.transaction(async (manager) => {
      const purchase = await manager.getRepository(Purchase).createQueryBuilder('p').setLock('pessimistic_write').where('p.purchase_id = :purchaseId', { purchaseId }).getOne();
      if (!purchase) throw new PlazaError('NOT_FOUND', `No purchase ${purchaseId}`, 'purchaseId');
      if (purchase.kind === PurchaseKind.REINSTALL) {
        const original = (await manager.findOneBy(Installation, { purchaseId }))?.originalPurchaseId;
        throw marketplaceErrors.freeReinstall(original);
      }
      if (purchase.kind !== PurchaseKind.PURCHASE) throw marketplaceErrors.freeInstall();
      if (purchase.status === PurchaseStatus.REFUNDED) throw marketplaceErrors.alreadyRefunded(purchaseId);
      const app = await this.apps.findById(purchase.appId, manager);
      if (!app) throw new Error(`purchase ${purchaseId} names app ${purchase.appId}, which does not exist`);
      const now = new Date();
      Object.assign(purchase, { status: PurchaseStatus.REFUNDED, refundedAt: now, refundReason: reason?.trim() || null });
      await manager.update(Purchase, { purchaseId }, { status: purchase.status, refundedAt: now, refundReason: purchase.refundReason });
      await manager.query('UPDATE accounts SET points = points + $2 WHERE id = $1', [purchase.userId, purchase.pricePoints]);
      await manager.insert(PointMovement, { userId: purchase.userId, delta: purchase.pricePoints, reason: 'refund', purchaseId, actorId: admin.userId, createdAt: now });
      await manager.insert(RevenueEntry, { purchaseId, appId: purchase.appId, developerId: app.ownerId, kind: 'REFUND', ...this.ledgerAmounts(purchase, -1), createdAt: now });
      // Whichever installation is current ends, the purchase's own or a later reinstall (it remembers the purchase).
      // A reinstall holds this purchase's row while it installs (install), so by this statement every
      // reinstall of it has committed and is seen here, and none can begin until this transaction ends.
      await manager.query('UPDATE installations SET uninstalled_at = $4 WHERE app_id = $2 AND user_id = $3 AND original_purchase_id = $1 AND uninstalled_at IS NULL', [
        purchaseId,
        purchase.appId,
        purchase.userId,
        now,
      ]);
      await this.storeEvents.recordEvent(manager, {
        type: WebhookEventType.APP_REFUNDED,
        appId: purchase.appId,
        userId: purchase.userId,
        purchaseId,
        amountVnd: purchase.amountVnd,
        developerShareVnd: purchase.developerShareVnd,
        at: now,
      });
      // The buyer learns it from Plaza, not only from a changed balance: in the same transaction, so no refund goes untold.
      const appName = app.publishedListing?.name ?? app.name;
      const because = purchase.refundReason ? ` Reason: ${purchase.refundReason}` : '';
      await this.notifications.notify(manager, purchase.userId, {
        kind: PURCHASE_REFUNDED,
        message: `Your purchase of ${appName} was refunded: ${purchase.pricePoints} points are back in your balance.${because}`,
        appId: purchase.appId,
        appName,
        note: purchase.refundReason,
        points: purchase.pricePoints,
      });
      return purchase;
    });
  }

  /** Admin: adds points to a user's balance, with the reason on record. */
  async creditPoints(admin: Principal, userId: string, points: number, reason: string): Promise<{ userId: string; points: number }> {
    if (!Number.isInteger(points) || points < 1 || points > 10_000_000) throw badInput('points', 'points must be a whole number between 1 and 10,000,000');
    if (!reason?.trim()) throw badInput('reason', 'reason is required: say why the points are credited');
    const reasonProblem = textProblem(reason, { multiline: true });
    if (reasonProblem) throw badInput('reason', `reason ${reasonProblem}`);
    return this.db.transaction(async (manager) => {
      const [rows] = await manager.query('UPDATE accounts SET points = points + $2 WHERE id = $1 RETURNING points', [userId, points]);
      if (!rows.length) throw new PlazaError('NOT_FOUND', `No user ${userId}`, 'userId');
      await manager.insert(PointMovement, { userId, delta: points, reason: `credit: ${reason.trim()}`, purchaseId: null, actorId: admin.userId, createdAt: new Date() });
      return { userId, points: toSafeInteger(rows[0].points) };
    });
  }

  /** The user's library: apps installed or bought and not uninstalled or refunded, newest first. */
  async library(userId: string): Promise<Installation[]> {
    return this.db
      .getRepository(Installation)
      .createQueryBuilder('i')
      .where('i.user_id = :userId AND i.uninstalled_at IS NULL', { userId })
      .orderBy('i.installed_at', 'DESC')
      .getMany();
  }

  /** Newest first (idx_purchases_user); every install is one, so the list only grows: paged, optionally of one app or kind. */
  async purchases(userId: string, filter: { appId?: string | null; kind?: PurchaseKind | null }, args: PageArgs): Promise<Connection<Purchase>> {
    const page = readPage(args, ['string', 'string']);
    const query = this.db.getRepository(Purchase).createQueryBuilder('p').where('p.user_id = :userId', { userId });
    if (filter.appId) query.andWhere('p.app_id = :appId', { appId: filter.appId });
    if (filter.kind) query.andWhere('p.kind = :kind', { kind: filter.kind });
    const { after, before } = page;
    if (after) query.andWhere('(p.created_at, p.purchase_id) < (:afterTime::timestamptz, :afterId)', { afterTime: cursorTime(after[0]), afterId: after[1] });
    if (before) query.andWhere('(p.created_at, p.purchase_id) > (:beforeTime::timestamptz, :beforeId)', { beforeTime: cursorTime(before[0], 'before'), beforeId: before[1] });
    const order = page.backward ? 'ASC' : 'DESC';
    const rows = await query
      .orderBy('p.created_at', order)
      .addOrderBy('p.purchase_id', order)
      .take(page.limit + 1)
      .getMany();
    return toConnection(rows, page, (purchase) => [purchase.createdAt.toISOString(), purchase.purchaseId]);
  }

  async owns(userId: string, appId: string): Promise<boolean> {
    return this.hasActiveInstallation(this.db.manager, userId, appId);
  }

  /**
   * An owner's earnings by app id, for `earnings` on each app of a list: one query for all the owner's
   * apps (at most MAX_APPS_PER_DEVELOPER rows) instead of one per app; owners asking in one turn share it.
   */
  readonly earningsByApp = perTickLoader(
    async (ownerIds: string[]) =>
      new Map(await Promise.all(ownerIds.map(async (ownerId) => [ownerId, new Map((await this.earnings(ownerId)).map((row) => [row.appId, row]))] as const))),
    () => new Map<string, AppEarningsRow>(),
  );

  private hasActiveInstallation(manager: EntityManager, userId: string, appId: string): Promise<boolean> {
    return manager
      .getRepository(Installation)
      .createQueryBuilder('i')
      .where('i.user_id = :userId AND i.app_id = :appId AND i.uninstalled_at IS NULL', { userId, appId })
      .getExists();
  }

  /** Per app, from the ledger: sales, the developer's share, refunds and the net; the developer's apps (the apps feature's) by name. */
  async earnings(developerId: string, appId?: string): Promise<AppEarningsRow[]> {
    const apps = (await appsOwnedBy(this.db.manager, developerId)).filter((app) => !appId || app.id === appId);
    if (apps.length === 0) return [];
    // Sums stay 64-bit (bigint, read as strings by pg) and become exact numbers below; `::int` overflowed past 2^31 VND.
    const rows: Record<Exclude<keyof AppEarningsRow, 'appName'>, string>[] = await this.db.query(
      `SELECT l.app_id AS "appId",
              count(l.id) FILTER (WHERE l.kind = 'SALE') AS "salesCount",
              coalesce(sum(l.gross_vnd) FILTER (WHERE l.kind = 'SALE'), 0)::bigint AS "grossSalesVnd",
              coalesce(sum(l.developer_share_vnd) FILTER (WHERE l.kind = 'SALE'), 0)::bigint AS "developerShareVnd",
              count(l.id) FILTER (WHERE l.kind = 'REFUND') AS "refundsCount",
              coalesce(-sum(l.gross_vnd) FILTER (WHERE l.kind = 'REFUND'), 0)::bigint AS "refundedVnd",
              coalesce(-sum(l.developer_share_vnd) FILTER (WHERE l.kind = 'REFUND'), 0)::bigint AS "refundedDeveloperShareVnd",
              coalesce(sum(l.developer_share_vnd), 0)::bigint AS "netDeveloperShareVnd"
         FROM revenue_ledger l
        WHERE l.app_id = ANY($1::text[])
        GROUP BY l.app_id`,
      [apps.map((app) => app.id)],
    );
    const byApp = new Map(rows.map((row) => [row.appId, row]));
    return apps.map(({ id, name }) => {
      const row = byApp.get(id);
      const sum = (key: Exclude<keyof AppEarningsRow, 'appId' | 'appName'>) => (row ? toSafeInteger(row[key]) : 0);
      return {
        appId: id,
        appName: name,
        salesCount: sum('salesCount'),
        grossSalesVnd: sum('grossSalesVnd'),
        developerShareVnd: sum('developerShareVnd'),
        refundsCount: sum('refundsCount'),
        refundedVnd: sum('refundedVnd'),
        refundedDeveloperShareVnd: sum('refundedDeveloperShareVnd'),
        netDeveloperShareVnd: sum('netDeveloperShareVnd'),
      };
    });
  }

  /** Installs, sales, refunds and the developer's net share of `appIds` per `unit` over the last `count` of them (UTC), oldest first. */
  async earningsSeries(
    appIds: string[],
    unit: 'day' | 'week' | 'month',
    count: number,
  ): Promise<{ start: Date; installs: number; purchases: number; refunds: number; netVnd: number }[]> {
    const rows: { start: Date; installs: number; purchases: number; refunds: number; net: string }[] = await this.db.query(EarningsSeries(unit), [appIds, count]);
    return rows.map(({ start, installs, purchases, refunds, net }) => ({ start, installs, purchases, refunds, netVnd: toSafeInteger(net) }));
  }
}

export interface AppEarningsRow {
  appId: string;
  appName: string;
  salesCount: number;
  grossSalesVnd: number;
  developerShareVnd: number;
  refundsCount: number;
  refundedVnd: number;
  refundedDeveloperShareVnd: number;
  netDeveloperShareVnd: number;
}
