import { FieldResolver, Resolver, Root } from 'type-graphql';
import { App, type AppService } from '../apps/index.js';
import { AppDeveloper, DeveloperDecisionCounts } from './app-developer.type.js';
import type { ReviewService } from './review.service.js';

/** AppDeveloper's fields; App.developer (app-review-fields.resolver.ts) has already checked that a reviewer asks. */
@Resolver(() => AppDeveloper)
export class AppDeveloperResolver {
  constructor(
    private readonly review: ReviewService,
    private readonly apps: AppService,
  ) {}

  @FieldResolver(() => [App], { description: 'Their other apps, newest first, each as it is now (its status included)' })
  async otherApps(@Root() developer: AppDeveloper): Promise<App[]> {
    return (await this.apps.mine(developer.id)).filter((app) => app.id !== developer.appId);
  }

  @FieldResolver(() => DeveloperDecisionCounts, { description: 'The review decisions on all their apps, this one’s earlier ones included' })
  decisions(@Root() developer: AppDeveloper): Promise<DeveloperDecisionCounts> {
    return this.review.decisionCountsOf(developer.id);
  }
}
