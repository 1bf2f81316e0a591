import { In, type DataSource } from 'typeorm';
import { badInput, notFound } from '../../platform/errors.js';
import { reviewErrors } from './review.errors.js';
import { perTickLoader } from '../../platform/per-tick-loader.js';
import { newId } from '../../platform/ids.js';
import { logger } from '../../platform/logger.js';
import { appIdsOwnedByEach, AppStatus, Pricing, type App, type AppService } from '../apps/index.js';
import type { IdentityService } from '../identity/index.js';
import type { Principal } from '../../platform/auth/principal.js';
import type { ReviewDecisionInput } from './dto/review-decision.input.js';
import type { Mailer } from '../../platform/mailer.js';
import type { NotificationService } from './notification.service.js';
import type { DeveloperDecisionCounts } from './app-developer.type.js';
import { ReviewDecision } from './review-decision.entity.js';
import { REJECTION_REASON_TEXT, RejectionReason, ReviewOutcome } from './review.types.js';

export class ReviewService {
  constructor(
    private readonly db: DataSource,
    private readonly notifications: NotificationService,
    private readonly mailer: Mailer,
    private readonly apps: AppService,
    private readonly identity: IdentityService,
  ) {}

  private checkInput(input: ReviewDecisionInput): { reasons: RejectionReason[]; note: string | null } {
    const reasons = [...new Set(input.reasons ?? [])];
    const note = input.note?.trim() || null;
    if (input.outcome === ReviewOutcome.REJECTED && reasons.length === 0) {
      throw badInput('reasons', 'A rejection needs at least one reason so the developer knows what to fix');
    }
    if (input.outcome === ReviewOutcome.APPROVED && reasons.length > 0) throw badInput('reasons', 'An approval takes no rejection reasons');
    if (reasons.includes(RejectionReason.OTHER) && !note) throw badInput('note', 'Reason OTHER needs a note explaining it');
    return { reasons, note };
  }

  /** Approves or rejects the pending version of an app, and tells its developer. */
  async decide(reviewer: Principal, input: ReviewDecisionInput): Promise<ReviewDecision> {
    const { reasons, note } = this.checkInput(input);
    const { decision, app } = await this.db.transaction(async (manager) => {
      const app = await this.apps.findById(input.appId, manager, 'pessimistic_write');
      if (!app) throw notFound('App');
      // Four eyes: nobody vouches for their own work, admins included.
      if (app.ownerId === reviewer.userId) throw reviewErrors.ownApp();
      if (app.status !== AppStatus.PENDING_REVIEW) throw reviewErrors.notPendingReview(app.status);
      if (input.revision !== undefined && input.revision !== null && input.revision !== app.revision) {
        throw reviewErrors.revisionChanged(app.revision, input.revision);
      }
      // The price was checked when it was set, against the POINT_VALUE_VND of that day; an operator may have raised
      // it since. Approving then would list an app every purchase of which fails.
      if (input.outcome === ReviewOutcome.APPROVED && app.pricing === Pricing.PAID && this.apps.priceVnd(app) === null) {
        throw reviewErrors.priceNotChargeable(app.pricePoints ?? 0);
      }
      const decidedAt = new Date();
      const decision = manager.create(ReviewDecision, {
        id: newId.reviewDecision(),
        appId: app.id,
        reviewerId: reviewer.userId,
        outcome: input.outcome,
        reasons,
        note,
        appRevision: app.revision,
        decidedAt,
      });
      await manager.insert(ReviewDecision, decision);
      if (input.outcome === ReviewOutcome.APPROVED) await this.apps.markApproved(manager, app, decidedAt);
      else await this.apps.markRejected(manager, app.id);
      await this.notifications.notify(manager, app.ownerId, {
        kind: `APP_${input.outcome}`,
        message: this.message(app, input.outcome, reasons, note),
        appId: app.id,
        appName: app.name,
        ...(input.outcome === ReviewOutcome.REJECTED ? { reasons, note } : {}),
      });
      return { decision, app };
    });
    // Committed: the store's cached pages would miss the newly listed version.
    if (input.outcome === ReviewOutcome.APPROVED) this.apps.storeListingChanged();
    this.emailDeveloper(app, decision);
    return decision;
  }

  private message(app: App, outcome: ReviewOutcome, reasons: RejectionReason[], note: string | null): string {
    if (outcome === ReviewOutcome.APPROVED) return `"${app.name}" was approved and is listed in the store.`;
    const why = reasons.map((r) => REJECTION_REASON_TEXT[r]).join('; ');
    return `"${app.name}" was rejected: ${why}.${note ? ` Reviewer's note: ${note}` : ''} Fix it and resubmit whenever you are ready.`;
  }

  /** After commit and off the request path: the e-mail is a courtesy copy of the notification. */
  private emailDeveloper(app: App, decision: ReviewDecision): void {
    if (!this.mailer.enabled) return;
    // Never rejects: a failed e-mail is logged by the catch below (the notification is already stored).
    void (async () => {
      const owner = await this.identity.findAccount(app.ownerId);
      if (!owner) return;
      const subject = decision.outcome === ReviewOutcome.APPROVED ? `Approved: ${app.name}` : `Changes needed: ${app.name}`;
      await this.mailer.send(owner.email, subject, this.message(app, decision.outcome, decision.reasons, decision.note));
    })().catch((err) => logger.warn({ err, appId: app.id }, 'decision e-mail failed'));
  }

  /** How the decisions on all of a developer's apps came out; the developers of one page ask together (two queries). */
  readonly decisionCountsOf = perTickLoader(
    async (ownerIds: string[]) => {
      const appsOf = await appIdsOwnedByEach(this.db.manager, ownerIds);
      const ownerOf = new Map([...appsOf].flatMap(([ownerId, appIds]) => appIds.map((appId) => [appId, ownerId] as const)));
      const rows: { app_id: string; outcome: ReviewOutcome; decisions: number }[] = ownerOf.size
        ? await this.db.query('SELECT app_id, outcome, count(*)::int AS decisions FROM review_decisions WHERE app_id = ANY($1::text[]) GROUP BY app_id, outcome', [
            [...ownerOf.keys()],
          ])
        : [];
      const counts = new Map(ownerIds.map((ownerId) => [ownerId, { approved: 0, rejected: 0 }]));
      for (const row of rows) {
        const ofOwner = counts.get(ownerOf.get(row.app_id)!)!;
        if (row.outcome === ReviewOutcome.APPROVED) ofOwner.approved += row.decisions;
        else ofOwner.rejected += row.decisions;
      }
      return counts;
    },
    (): DeveloperDecisionCounts => ({ approved: 0, rejected: 0 }),
  );

  /** An app's decisions, oldest first; the apps of one list ask together (one query). */
  readonly history = perTickLoader(
    async (appIds: string[]) => {
      const decisions = await this.db.getRepository(ReviewDecision).find({ where: { appId: In(appIds) }, order: { decidedAt: 'ASC' } });
      const byApp = new Map<string, ReviewDecision[]>();
      for (const decision of decisions) {
        const ofApp = byApp.get(decision.appId);
        if (ofApp) ofApp.push(decision);
        else byApp.set(decision.appId, [decision]);
      }
      return byApp;
    },
    (): ReviewDecision[] => [],
  );
}
