import { Ctx, FieldResolver, Resolver, Root } from 'type-graphql';
import type { RequestContext } from '../../platform/auth/context.js';
import { principalWithScope, signedInPerson } from '../../platform/auth/principal.js';
import { forbidden } from '../../platform/errors.js';
import type { IdentityService } from '../identity/index.js';
import { App, developerNameOf, isOwner, isReviewer } from '../apps/index.js';
import { AppDeveloper } from './app-developer.type.js';
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
    private readonly identity: IdentityService,
  ) {}

  @FieldResolver(() => AppDeveloper, {
    nullable: true,
    description: 'Reviewers and admins: who made the app, their other apps and the decisions on their apps (anyone else: FORBIDDEN); null once the account is gone',
  })
  async developer(@Root() app: App, @Ctx() { principal }: RequestContext): Promise<AppDeveloper | null> {
    // A reviewer weighs a submission by its maker's record; that record, and the address, are not the public's or other developers'.
    if (!isReviewer(signedInPerson(principal))) throw forbidden('Only reviewers and admins see who made an app beyond its developer name');
    const account = await this.identity.accountById(app.ownerId);
    return account ? Object.assign(new AppDeveloper(), { id: account.id, name: developerNameOf(account.email), email: account.email, appId: app.id }) : null;
  }

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
