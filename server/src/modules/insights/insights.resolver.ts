import { Arg, Authorized, Ctx, ID, Query, Resolver } from 'type-graphql';
import { tokenScope } from '../../platform/auth/auth-checker.js';
import { requirePrincipal, type RequestContext } from '../../platform/auth/context.js';
import type { Principal } from '../../platform/auth/principal.js';
import type { AppService } from '../apps/index.js';
import type { InsightsService } from './insights.service.js';
import { DeveloperEarnings, EarningsPeriod, PlatformStats, StatsWindow, WebhookDeliveryStats } from './insights.types.js';

/** The numbers behind the charts. Who may see which app is the apps feature's rule. */
@Resolver()
export class InsightsResolver {
  constructor(
    private readonly insights: InsightsService,
    private readonly apps: AppService,
  ) {}

  @Authorized(tokenScope('deliveries:read'))
  @Query(() => WebhookDeliveryStats, {
    description:
      'Webhook attempts per hour by outcome, success rate and p50/p95 latency over the window: one app (its owner; reviewers and admins any), or all apps you own together. API tokens need deliveries:read',
  })
  async webhookDeliveryStats(
    @Ctx() context: RequestContext,
    @Arg('appId', () => ID, { nullable: true, description: 'One app (yours; reviewers and admins: any); all of yours together when omitted' }) appId?: string | null,
    @Arg('window', () => StatsWindow, { nullable: true, defaultValue: StatsWindow.LAST_24_HOURS, description: 'LAST_24_HOURS (24 hourly buckets) or LAST_7_DAYS (168)' })
    windowArg?: StatsWindow | null,
  ): Promise<WebhookDeliveryStats> {
    const principal = requirePrincipal(context);
    const window = windowArg ?? StatsWindow.LAST_24_HOURS;
    if (appId) {
      const app = await this.readableApp(principal, appId);
      return this.insights.deliveryStats([app.id], window, app.webhookState);
    }
    const owned = await this.insights.ownedApps(principal.userId);
    return this.insights.deliveryStats(
      owned.map((app) => app.id),
      window,
      null,
    );
  }

  /** One app's numbers: its owner, and reviewers and admins signed in as people (an API token is only its owner's). */
  private async readableApp(principal: Principal, appId: string) {
    if (principal.kind === 'session' && principal.roles.has('REVIEWER')) return (await this.apps.requireVisible(principal, appId)).app;
    return this.apps.requireOwned(principal, appId, {
      allowAdmin: true,
      forbiddenMessage: 'Only the developer who owns this app (or a reviewer or admin) can see its delivery numbers',
    });
  }

  @Authorized()
  @Query(() => DeveloperEarnings, { description: 'Installs, purchases, refunds and your net earnings per day, week or month: all your apps, or one' })
  async developerEarnings(
    @Ctx() context: RequestContext,
    @Arg('period', () => EarningsPeriod, { nullable: true, defaultValue: EarningsPeriod.DAY, description: 'DAY (last 30 days), WEEK (last 12 weeks) or MONTH (last 12 months)' })
    period: EarningsPeriod | null | undefined,
    @Arg('appId', () => ID, { nullable: true, description: 'One of your apps; all of yours when omitted' }) appId?: string | null,
  ): Promise<DeveloperEarnings> {
    const principal = requirePrincipal(context);
    const appIds = appId
      ? [(await this.apps.requireOwned(principal, appId, { forbiddenMessage: 'Only the developer who owns this app can see its earnings' })).id]
      : (await this.insights.ownedApps(principal.userId)).map((app) => app.id);
    return this.insights.earnings(appIds, period ?? EarningsPeriod.DAY);
  }

  @Authorized('ADMIN')
  @Query(() => PlatformStats, { description: 'Admins: platform deliveries per minute and failure rate, the review queue’s ages, the apps whose webhooks fail most' })
  platformStats(): Promise<PlatformStats> {
    return this.insights.platformStats();
  }
}
