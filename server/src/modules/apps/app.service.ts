import { In, type DataSource, type EntityManager } from 'typeorm';
import type { Config } from '../../config.js';
import { perTickLoader } from '../../platform/per-tick-loader.js';
import { CHARGE_MAX_VND, maxChargeablePoints } from '../../platform/chargeable-price.js';
import { badInput, notFound } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { entityColumns, queryPreparedVariant } from '../../platform/prepared-query.js';
import { cursorTime, readPage, toConnection, type Connection, type PageArgs } from '../../platform/connection.js';
import type { Principal } from '../../platform/auth/principal.js';
import { blockedHostReason } from '../../platform/outbound-http/address-policy.js';
import { App } from './app.entity.js';
import { findApp, requireOwnedApp, viewOf, type OwnedAppOptions } from './app-access.js';
import { appErrors } from './app.errors.js';
import { StorePageCache, type StorePageArgs } from './store-page-cache.js';
import { StoreResponseCache } from './public-store-read.js';
import { AppStatus, CATEGORIES, LISTING_FIELDS, Pricing, REVIEW_DUE_AFTER_MS, SUBSCRIBABLE_EVENTS, type Listing } from './app.types.js';
import type { WebhookEventType } from '../../platform/webhook-enums.js';
import type { SubmitAppInput } from './dto/submit-app.input.js';
import type { UpdateAppInput } from './dto/update-app.input.js';

type AppFields = Listing & { webhookUrl: string | null; webhookEvents: WebhookEventType[] };

export const listingOf = (app: Listing): Listing => ({
  name: app.name,
  shortDescription: app.shortDescription,
  iconUrl: app.iconUrl,
  appUrl: app.appUrl,
  category: app.category,
  pricing: app.pricing,
  pricePoints: app.pricePoints,
  longDescription: app.longDescription ?? null,
  screenshotUrls: app.screenshotUrls ?? null,
  supportUrl: app.supportUrl ?? null,
  privacyPolicyUrl: app.privacyPolicyUrl ?? null,
});

/** Whether a listing field's two values are the same; screenshots are a list, compared item by item. */
const sameListingValue = (a: unknown, b: unknown) =>
  Array.isArray(a) || Array.isArray(b) ? Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((item, i) => item === b[i]) : a === b;

/** An optional text: trimmed; blank means none (null). Undefined stays undefined (not given). */
const optionalText = (value: string | null | undefined) => (value === undefined ? undefined : value?.trim() || null);

/**
 * What a submission sets going in its own transaction, done by the features that stand on apps (secrets makes
 * the client secret, review requests the pre-checks) and handed in by app/: apps imports neither of them.
 */
export interface SubmissionSteps {
  /** A new app's client secret, created with it. */
  createSecret(manager: EntityManager, appId: string, at: Date): Promise<void>;
  /** Pre-checks of the version that now waits for review. */
  requestPreChecks(manager: EntityManager, appId: string, revision: number): Promise<void>;
  /** The app's Webhook URL and events as given (submit, update): its first webhook endpoint takes them (made, changed, or deleted with a null URL). */
  setWebhookDestination(manager: EntityManager, appId: string, url: string | null, events: WebhookEventType[]): Promise<void>;
  /**
   * After a new app of `ownerId` committed: what this process keeps of the owner's verified credentials carries their
   * app ids (an API token reading the Webhook Logs), read anew here at once. Other processes hear the database's notice.
   */
  ownerAppsChanged(ownerId: string): void;
}

export class AppService {
  constructor(
    private readonly db: DataSource,
    private readonly config: Config,
    private readonly steps: SubmissionSteps,
  ) {}

  /**
   * What a paid app's price costs in VND at this server's POINT_VALUE_VND, as a purchase would charge it; null
   * for a free app, and for a price listed before POINT_VALUE_VND was raised that no purchase can charge (its
   * VND value would not fit the 32-bit Int, and one such app must not fail a whole store page).
   */
  priceVnd({ pricing, pricePoints }: Pick<App, 'pricing' | 'pricePoints'>): number | null {
    if (pricing !== Pricing.PAID || pricePoints === null) return null;
    if (pricePoints > maxChargeablePoints(this.config.pointValueVnd)) return null;
    return pricePoints * this.config.pointValueVnd;
  }

  /**
   * A price every purchase would refuse ("too large to charge") must not reach review: the largest one
   * depends on POINT_VALUE_VND, so it is checked here, with the purchase's own rule (maxChargeablePoints).
   */
  private checkChargeable({ pricing, pricePoints }: Pick<AppFields, 'pricing' | 'pricePoints'>): void {
    const max = maxChargeablePoints(this.config.pointValueVnd);
    if (pricing !== Pricing.PAID || pricePoints === null || pricePoints <= max) return;
    throw appErrors.priceNotChargeable(max, this.config.pointValueVnd, CHARGE_MAX_VND);
  }

  /**
   * Rules that span fields or depend on configuration; single-field rules ran on the input type.
   * `price: false` skips the chargeable-price rule, for an edit that sends no version to review.
   */
  private checkFields(fields: AppFields, options: { price: boolean } = { price: true }): void {
    if (fields.pricing === Pricing.PAID && (fields.pricePoints === null || fields.pricePoints === undefined)) {
      throw badInput('pricePoints', 'pricePoints is required for a paid app: a whole number of points greater than 0');
    }
    if (fields.pricing === Pricing.FREE && fields.pricePoints !== null && fields.pricePoints !== undefined) {
      throw badInput('pricePoints', 'pricePoints must be empty for a free app; choose PAID to set a price');
    }
    if (options.price) this.checkChargeable(fields);
    if (fields.webhookUrl) {
      const url = new URL(fields.webhookUrl);
      if (!this.config.webhookAllowPrivateUrls) {
        if (url.protocol !== 'https:') throw appErrors.webhookNotHttps();
        const reason = blockedHostReason(url);
        if (reason) throw appErrors.webhookInternal(reason);
      }
    }
  }

  private normalise<T extends Partial<Omit<AppFields, 'webhookEvents'>> & { webhookEvents?: WebhookEventType[] | null }>(input: T): T {
    const out = { ...input };
    // Kept in one order without repeats, so an edit that lists the same events changes nothing.
    if (out.webhookEvents) out.webhookEvents = SUBSCRIBABLE_EVENTS.filter((event) => out.webhookEvents!.includes(event));
    else out.webhookEvents = undefined;
    if (typeof out.name === 'string') out.name = out.name.trim();
    if (typeof out.shortDescription === 'string') out.shortDescription = out.shortDescription.trim();
    if (typeof out.category === 'string') out.category = out.category.trim().toLowerCase();
    if (out.webhookUrl === '') out.webhookUrl = null;
    // The app page's details: none is stored as null, so an edit that empties one and a listing without it agree.
    out.longDescription = optionalText(out.longDescription);
    out.supportUrl = optionalText(out.supportUrl);
    out.privacyPolicyUrl = optionalText(out.privacyPolicyUrl);
    if (out.screenshotUrls !== undefined) out.screenshotUrls = out.screenshotUrls?.length ? out.screenshotUrls.map((url) => url.trim()) : null;
    return out;
  }

  async submit(principal: Principal, rawInput: SubmitAppInput): Promise<App> {
    const normalised = this.normalise({
      ...rawInput,
      pricePoints: rawInput.pricePoints ?? null,
      webhookUrl: rawInput.webhookUrl ?? null,
      longDescription: rawInput.longDescription ?? null,
      screenshotUrls: rawInput.screenshotUrls ?? null,
      supportUrl: rawInput.supportUrl ?? null,
      privacyPolicyUrl: rawInput.privacyPolicyUrl ?? null,
    });
    const input = { ...normalised, webhookEvents: normalised.webhookEvents ?? [...SUBSCRIBABLE_EVENTS] };
    this.checkFields(input);
    const now = new Date();
    const app = this.db.getRepository(App).create({
      ...input,
      id: newId.app(),
      ownerId: principal.userId,
      status: AppStatus.PENDING_REVIEW,
      revision: 1,
      submittedAt: now,
      reviewDueAt: new Date(now.getTime() + REVIEW_DUE_AFTER_MS),
      publishedListing: null,
      listedAt: null,
    });
    await this.db.transaction(async (manager) => {
      await this.assertRoomForAnotherApp(manager, principal.userId);
      await manager.insert(App, app);
      if (app.webhookUrl) await this.steps.setWebhookDestination(manager, app.id, app.webhookUrl, app.webhookEvents);
      await this.steps.createSecret(manager, app.id, now);
      await this.steps.requestPreChecks(manager, app.id, app.revision);
    });
    this.steps.ownerAppsChanged(principal.userId);
    return this.db.getRepository(App).findOneByOrFail({ id: app.id });
  }

  /**
   * Edits an app. A rejected app goes back to review (resubmission) even without changes; an
   * approved app goes back to review when a listing field changes, while the store keeps showing
   * the approved version. The webhook URL and events are not part of the listing and change at once.
   */
  async update(principal: Principal, id: string, rawInput: UpdateAppInput): Promise<App> {
    const input = this.normalise(rawInput);
    return this.db.transaction(async (manager) => {
      const app = await requireOwnedApp(manager, principal, id, { lock: 'pessimistic_write', forbiddenMessage: 'Only the developer who submitted this app can change it' });
      const given = Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined)) as Partial<AppFields>;
      // Switching to FREE clears the price unless the caller said otherwise.
      if (given.pricing === Pricing.FREE && !('pricePoints' in given)) given.pricePoints = null;
      const merged: AppFields = { ...listingOf(app), webhookUrl: app.webhookUrl, webhookEvents: app.webhookEvents, ...given };

      const listingChanged = LISTING_FIELDS.some((f) => !sameListingValue(merged[f], app[f]));
      const webhookChanged = merged.webhookUrl !== app.webhookUrl || merged.webhookEvents.join() !== app.webhookEvents.join();
      const resubmit = app.status === AppStatus.REJECTED || (app.status === AppStatus.APPROVED && listingChanged);
      // The price is judged whenever this version waits for review; a webhook-only edit of a listed app
      // sends nothing to review, so a price listed before POINT_VALUE_VND was raised does not block it.
      this.checkFields(merged, { price: resubmit || listingChanged || app.status === AppStatus.PENDING_REVIEW });
      if (!listingChanged && !webhookChanged && !resubmit) return app;

      const now = new Date();
      Object.assign(app, merged, { revision: app.revision + 1 });
      if (resubmit) Object.assign(app, { status: AppStatus.PENDING_REVIEW, submittedAt: now, reviewDueAt: new Date(now.getTime() + REVIEW_DUE_AFTER_MS) });
      await manager.save(App, app);
      if (webhookChanged) await this.steps.setWebhookDestination(manager, app.id, app.webhookUrl, app.webhookEvents);
      // Every version that waits for review gets checked; a webhook-only edit of a listed app does not wait.
      if (app.status === AppStatus.PENDING_REVIEW) await this.steps.requestPreChecks(manager, app.id, app.revision);
      return manager.findOneByOrFail(App, { id });
    });
  }

  /**
   * MAX_APPS_PER_DEVELOPER: `myApps` is unpaged, so one account's app count bounds what it returns.
   * The owner's submissions are serialised (a transaction-scoped lock on the owner id) so two at once
   * cannot both take the last place.
   */
  private async assertRoomForAnotherApp(manager: EntityManager, ownerId: string): Promise<void> {
    await manager.query(`SELECT pg_advisory_xact_lock(hashtextextended('plaza.apps-of:' || $1, 0))`, [ownerId]);
    const [{ n }] = await manager.query(`SELECT count(*)::int AS n FROM apps WHERE owner_id = $1`, [ownerId]);
    const limit = this.config.maxAppsPerDeveloper;
    if (n >= limit) throw appErrors.tooManyApps(n, limit);
  }

  /**
   * The app when `principal` owns it (with allowAdmin: or is an admin); NOT_FOUND for an app they may
   * not see, FORBIDDEN with `forbiddenMessage` for one they see but do not own (requireOwnedApp).
   */
  requireOwned(principal: Principal, appId: string, options: OwnedAppOptions = {}): Promise<App> {
    return requireOwnedApp(this.db.manager, principal, appId, options);
  }

  /**
   * The app as it is (no view applied), or null: how other features read an app. In the caller's
   * transaction when given its `manager`; `lock` then locks the app's row there.
   */
  findById(appId: string, manager: EntityManager = this.db.manager, lock?: 'pessimistic_write'): Promise<App | null> {
    return findApp(manager, appId, lock);
  }

  /** Review approved `app` (read in the reviewer's transaction): its current version becomes the listed one; listed since its first approval. */
  async markApproved(manager: EntityManager, app: App, decidedAt: Date): Promise<void> {
    await manager.update(App, { id: app.id }, { status: AppStatus.APPROVED, publishedListing: listingOf(app), listedAt: app.listedAt ?? decidedAt });
  }

  /** Review rejected the app's pending version (in the reviewer's transaction); the listed version, if any, stays listed. */
  async markRejected(manager: EntityManager, appId: string): Promise<void> {
    await manager.update(App, { id: appId }, { status: AppStatus.REJECTED });
  }

  /** The app as it is and as `principal` may see it (viewOf); NOT_FOUND when they may see no version of it. */
  async requireVisible(principal: Principal, appId: string): Promise<{ app: App; view: App }> {
    const app = await this.db.getRepository(App).findOneBy({ id: appId });
    const view = app ? viewOf(app, principal) : null;
    if (!app || !view) throw notFound('App');
    return { app, view };
  }

  /** Apps by id; the items of one list (a library's installations) ask together (one query). */
  private readonly byId = perTickLoader(
    async (ids: string[]) => {
      const apps = await this.db.getRepository(App).findBy({ id: In(ids) });
      return new Map(apps.map((app) => [app.id, app]));
    },
    (): App | null => null,
  );

  async find(principal: Principal | null, id: string): Promise<App | null> {
    const app = await this.byId(id);
    return app ? viewOf(app, principal) : null;
  }

  /** Newest first, at most MAX_APPS_PER_DEVELOPER (should the limit be lowered below what an account has). */
  async mine(ownerId: string): Promise<App[]> {
    return this.db.getRepository(App).find({ where: { ownerId }, order: { createdAt: 'DESC' }, take: this.config.maxAppsPerDeveloper });
  }

  /**
   * Each of these owners' newest apps, at most `limit` each, newest first: two statements for any number of owners
   * (a reviewer's queue page asks for the developer of every queued app at once).
   */
  async newestOfEach(ownerIds: readonly string[], limit: number): Promise<Map<string, App[]>> {
    const newest = new Map(ownerIds.map((ownerId) => [ownerId, [] as App[]]));
    const rows: { id: string }[] = await this.db.query(
      `SELECT id FROM (SELECT id, row_number() OVER (PARTITION BY owner_id ORDER BY created_at DESC, id DESC) AS rank FROM apps WHERE owner_id = ANY($1::text[])) ranked
        WHERE rank <= $2`,
      [ownerIds, limit],
    );
    if (rows.length === 0) return newest;
    const apps = await this.db.getRepository(App).find({ where: { id: In(rows.map((row) => row.id)) }, order: { createdAt: 'DESC', id: 'DESC' } });
    for (const app of apps) newest.get(app.ownerId)?.push(app);
    return newest;
  }

  /** Store pages kept in memory for a moment; ReviewService says when an approval has committed (storeListingChanged). */
  readonly storePages = new StorePageCache();
  /** Whole answers to signed-out store reads (app/store-response-cache.ts), emptied with the pages. */
  readonly storeResponses = new StoreResponseCache();

  /** An approval committed: the store lists a new app or a new version of one. */
  storeListingChanged(): void {
    this.storePages.invalidate();
    this.storeResponses.invalidate();
  }

  /** Approved apps as listed (their last approved version), newest listing first. */
  async store(args: StorePageArgs): Promise<Connection<App>> {
    return this.storePages.get(args) ?? this.storePages.through(args, () => this.readStorePage(args));
  }

  private async readStorePage(args: StorePageArgs): Promise<Connection<App>> {
    const page = readPage(args, ['string', 'string']);
    const where = ['a.published_listing IS NOT NULL'];
    const params: unknown[] = [];
    const param = (value: unknown) => `$${params.push(value)}`;
    if (args.category) {
      const category = args.category.trim().toLowerCase();
      if (!(CATEGORIES as readonly string[]).includes(category)) throw badInput('category', `category must be one of ${CATEGORIES.join(', ')}`);
      where.push(`a.published_listing->>'category' = ${param(category)}`);
    }
    if (args.search?.trim()) {
      const pattern = param(`%${args.search.trim().replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
      where.push(`(a.published_listing->>'name' ILIKE ${pattern} OR a.published_listing->>'shortDescription' ILIKE ${pattern})`);
    }
    const { after, before } = page;
    if (after) where.push(`(a.listed_at, a.id) < (${param(cursorTime(after[0]))}::timestamptz, ${param(after[1])})`);
    if (before) where.push(`(a.listed_at, a.id) > (${param(cursorTime(before[0], 'before'))}::timestamptz, ${param(before[1])})`);
    const order = page.backward ? 'ASC' : 'DESC';
    // The busiest public read: prepared, not built by the query builder (which cost more than the query).
    const rows = await queryPreparedVariant<App>(
      this.db.manager,
      'plaza_store_page',
      `SELECT ${entityColumns(this.db, App, 'a')} FROM apps a WHERE ${where.join(' AND ')} ORDER BY a.listed_at ${order}, a.id ${order} LIMIT ${param(page.limit + 1)}`,
      params,
    );
    const listed = rows.map((row) => viewOf(Object.assign(new App(), row), null)!);
    return toConnection(listed, page, (app) => [app.listedAt!.toISOString(), app.id]);
  }

  /** Apps waiting for review, oldest submission first. */
  async reviewQueue(args: PageArgs): Promise<Connection<App>> {
    const page = readPage(args, ['string', 'string']);
    const { after, before } = page;
    const query = this.db.getRepository(App).createQueryBuilder('a').where('a.status = :status', { status: AppStatus.PENDING_REVIEW });
    if (after) query.andWhere('(a.submitted_at, a.id) > (:submittedAt::timestamptz, :id)', { submittedAt: cursorTime(after[0]), id: after[1] });
    if (before)
      query.andWhere('(a.submitted_at, a.id) < (:beforeSubmittedAt::timestamptz, :beforeId)', { beforeSubmittedAt: cursorTime(before[0], 'before'), beforeId: before[1] });
    const order = page.backward ? 'DESC' : 'ASC';
    const rows = await query
      .orderBy('a.submitted_at', order)
      .addOrderBy('a.id', order)
      .take(page.limit + 1)
      .getMany();
    return toConnection(rows, page, (app) => [app.submittedAt.toISOString(), app.id]);
  }
}
