import { Ctx, FieldResolver, Resolver, Root } from 'type-graphql';
import type { RequestContext } from '../../platform/auth/context.js';
import { principalWithScope } from '../../platform/auth/principal.js';
import { App, isOwner, isReviewer } from '../apps/index.js';
import { AppPreCheck } from './pre-checks/pre-check.entity.js';
import type { PreCheckService } from './pre-checks/pre-checks.service.js';
import { ReviewDecision } from './review-decision.entity.js';
import type { ReviewService } from './review.service.js';

/** App's review fields, answered by the review feature (which stands on apps, not the other way round). */
@Resolver(() => App)
export class AppReviewFieldsResolver {
  constructor(
    private readonly review: ReviewService,
    private readonly preCheckService: PreCheckService,
  ) {}

  @FieldResolver(() => [ReviewDecision], { description: 'Oldest first' })
  reviewDecisions(@Root() app: App, @Ctx() { principal }: RequestContext): Promise<ReviewDecision[]> | ReviewDecision[] {
    // The public sees the listing, not its review history; a token reads it only with apps:read.
    const reader = principalWithScope(principal, 'apps:read');
    if (!isOwner(app, reader) && !isReviewer(reader)) return [];
    return this.review.history(app.id);
  }

  @FieldResolver(() => AppPreCheck, { nullable: true, description: 'Automated checks of the latest version; for its developer and reviewers' })
  preChecks(@Root() app: App, @Ctx() { principal }: RequestContext): Promise<AppPreCheck | null> | null {
    const reader = principalWithScope(principal, 'apps:read');
    return isOwner(app, reader) || isReviewer(reader) ? this.preCheckService.latest(app.id) : null;
  }
}
