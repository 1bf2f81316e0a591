import { FieldResolver, Resolver, Root } from 'type-graphql';
import { App, type AppService } from '../apps/index.js';
import { AppDeveloper, DeveloperDecisionCounts } from './app-developer.type.js';
import type { ReviewService } from './review.service.js';
import { perTickLoader } from '../../platform/per-tick-loader.js';

/**
 * How many of a developer's other apps a reviewer is shown, newest first: enough to judge a record, and a bound the
 * query cost estimate can count on (platform/graphql-limits.ts) for a queue of many developers.
 */
export const OTHER_APPS_SHOWN = 20;

/** AppDeveloper's fields; App.developer (app-review-fields.resolver.ts) has already checked that a reviewer asks. */
@Resolver(() => AppDeveloper)
export class AppDeveloperResolver {
  /** Every developer of a queue page read together: one more than shown, since the app asked from is left out. */
  private readonly newestAppsOf: (ownerId: string) => Promise<App[]>;

  constructor(
    private readonly review: ReviewService,
    apps: AppService,
  ) {
    this.newestAppsOf = perTickLoader(
      (ownerIds: string[]) => apps.newestOfEach(ownerIds, OTHER_APPS_SHOWN + 1),
      (): App[] => [],
    );
  }

  @FieldResolver(() => [App], { description: 'Their other apps, the 20 newest, each as it is now (its status included)' })
  async otherApps(@Root() developer: AppDeveloper): Promise<App[]> {
    return (await this.newestAppsOf(developer.id)).filter((app) => app.id !== developer.appId).slice(0, OTHER_APPS_SHOWN);
  }

  @FieldResolver(() => DeveloperDecisionCounts, { description: 'The review decisions on all their apps, this one’s earlier ones included' })
  decisions(@Root() developer: AppDeveloper): Promise<DeveloperDecisionCounts> {
    return this.review.decisionCountsOf(developer.id);
  }
}
