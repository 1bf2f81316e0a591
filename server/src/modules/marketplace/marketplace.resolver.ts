import { Arg, Authorized, Ctx, Field, FieldResolver, ID, Int, Mutation, ObjectType, Query, Resolver, Root } from 'type-graphql';
import { requirePrincipal, type RequestContext } from '../../platform/auth/context.js';
import { badInput, forbidden, notFound } from '../../platform/errors.js';
import { int32Field, SafeInt } from '../../platform/int64.js';
import { App } from '../apps/app.entity.js';
import { isOwner, viewOf } from '../apps/app-access.js';
import { AppStatus } from '../apps/app.types.js';
import { Account } from '../identity/account.entity.js';
import { signedInPerson } from '../../platform/auth/principal.js';
import { Installation, Purchase } from './marketplace.entities.js';

@ObjectType()
export class PointsBalance {
  @Field(() => ID)
  userId: string;

  @Field(() => SafeInt, { description: 'The balance, exact at any size (a 32-bit Int ends at 2,147,483,647)' })
  pointsExact: number;

  constructor(userId: string, points: number) {
    this.userId = userId;
    this.pointsExact = points;
  }

  @Field(() => Int, { description: 'The balance while it fits a 32-bit Int; past that an error that points to pointsExact' })
  get points(): number {
    return int32Field(this.pointsExact, 'points', 'pointsExact');
  }
}

// Amounts are SafeInt, not Int: a developer's sales pass 2^31 VND (about 2.1 billion) in the normal course.
@ObjectType({ description: 'Per app, from the revenue ledger; all amounts in VND' })
export class AppEarnings {
  @Field(() => ID)
  appId: string;

  @Field()
  appName: string;

  @Field(() => Int)
  salesCount: number;

  @Field(() => SafeInt, { description: 'What buyers paid' })
  grossSalesVnd: number;

  @Field(() => SafeInt, { description: 'Your 80% of the gross sales' })
  developerShareVnd: number;

  @Field(() => Int)
  refundsCount: number;

  @Field(() => SafeInt, { description: 'Gross amount refunded' })
  refundedVnd: number;

  @Field(() => SafeInt, { description: 'Your share given back through refunds' })
  refundedDeveloperShareVnd: number;

  @Field(() => SafeInt, { description: 'Your share of sales minus refunds' })
  netDeveloperShareVnd: number;
}

@ObjectType({ description: 'What the AppLauncher needs to open an app: where, and the INIT_SESSION fields' })
export class AppLaunch {
  @Field(() => ID)
  appId: string;

  @Field()
  appUrl: string;

  @Field({ description: 'The App URL’s origin: INIT_SESSION goes only there, and APP_READY is accepted only from there' })
  targetOrigin: string;

  @Field({ description: 'ES256 JWT: iss = platform origin, aud = app id, sub = user id, 5 minutes' })
  token: string;

  @Field(() => ID)
  userId: string;

  @Field()
  locale: string;

  @Field()
  theme: string;

  @Field()
  expiresAt: Date;
}

const LOCALES = ['en', 'vi'];
const THEMES = ['light', 'dark'];

@Resolver()
export class MarketplaceResolver {
  @Authorized()
  @Mutation(() => Installation, { description: 'Free apps (or a paid app you bought); sends app.installed' })
  installApp(@Arg('appId', () => ID) appId: string, @Ctx() context: RequestContext): Promise<Installation> {
    return context.services.marketplace.install(requirePrincipal(context), appId);
  }

  @Authorized()
  @Mutation(() => Purchase, { description: 'Paid apps: debits your points; sends app.purchased' })
  purchaseApp(@Arg('appId', () => ID) appId: string, @Ctx() context: RequestContext): Promise<Purchase> {
    return context.services.marketplace.purchase(requirePrincipal(context), appId);
  }

  @Authorized()
  @Mutation(() => Installation, { description: 'Sends app.uninstalled' })
  uninstallApp(@Arg('appId', () => ID) appId: string, @Ctx() context: RequestContext): Promise<Installation> {
    return context.services.marketplace.uninstall(requirePrincipal(context), appId);
  }

  @Authorized('ADMIN')
  @Mutation(() => Purchase, { description: 'Admin: returns the points, reverses the revenue split, ends access; sends app.refunded' })
  refundPurchase(@Arg('purchaseId') purchaseId: string, @Ctx() context: RequestContext, @Arg('reason', () => String, { nullable: true }) reason?: string | null): Promise<Purchase> {
    return context.services.marketplace.refund(requirePrincipal(context), purchaseId, reason ?? null);
  }

  @Authorized('ADMIN')
  @Mutation(() => PointsBalance, { description: 'Admin: adds points to a user’s balance' })
  async creditPoints(@Arg('userId', () => ID) userId: string, @Arg('points', () => Int) points: number, @Arg('reason') reason: string, @Ctx() context: RequestContext): Promise<PointsBalance> {
    const balance = await context.services.marketplace.creditPoints(requirePrincipal(context), userId, points, reason);
    return new PointsBalance(balance.userId, balance.points);
  }

  @Authorized()
  @Query(() => [Installation], { description: 'Apps you installed or bought, newest first' })
  myLibrary(@Ctx() context: RequestContext): Promise<Installation[]> {
    return context.services.marketplace.library(requirePrincipal(context).userId);
  }

  @Authorized()
  @Query(() => [Purchase], { description: 'Your purchases and free installs, newest first' })
  myPurchases(@Ctx() context: RequestContext): Promise<Purchase[]> {
    return context.services.marketplace.purchases(requirePrincipal(context).userId);
  }

  @Authorized()
  @Query(() => PointsBalance)
  async myPointsBalance(@Ctx() context: RequestContext): Promise<PointsBalance> {
    const { userId } = requirePrincipal(context);
    const account = await context.services.identity.findAccount(userId);
    return new PointsBalance(userId, account?.points ?? 0);
  }

  @Authorized()
  @Query(() => [AppEarnings], { description: 'Sales, your share, refunds and the net for each of your apps' })
  myEarnings(@Ctx() context: RequestContext): Promise<AppEarnings[]> {
    return context.services.marketplace.earnings(requirePrincipal(context).userId);
  }

  @Authorized()
  @Mutation(() => AppLaunch, { description: 'A session token for INIT_SESSION; for users who have the app, its developer, and reviewers of an app under review' })
  async launchApp(
    @Arg('appId', () => ID) appId: string,
    @Ctx() context: RequestContext,
    @Arg('locale', () => String, { nullable: true }) locale?: string | null,
    @Arg('theme', () => String, { nullable: true }) theme?: string | null,
  ): Promise<AppLaunch> {
    const principal = requirePrincipal(context);
    if (principal.kind !== 'session') throw forbidden('Apps are opened by people, not API tokens');
    if (locale && !LOCALES.includes(locale)) throw badInput('locale', `locale must be one of ${LOCALES.join(', ')}`);
    if (theme && !THEMES.includes(theme)) throw badInput('theme', `theme must be one of ${THEMES.join(', ')}`);
    const { services } = context;
    const app = await services.db.getRepository(App).findOneBy({ id: appId });
    const visible = app ? viewOf(app, principal) : null;
    if (!app || !visible) throw notFound('App');
    const underReview = app.status === AppStatus.PENDING_REVIEW && principal.roles.has('REVIEWER');
    // Developers and reviewers open the version being worked on; users the listed one.
    const canSeeCurrent = isOwner(app, principal) || underReview;
    if (!canSeeCurrent && !(await services.marketplace.owns(principal.userId, appId))) throw forbidden('Install or buy this app to open it');
    const appUrl = canSeeCurrent ? app.appUrl : visible.appUrl;
    const account = await services.identity.findAccount(principal.userId);
    const issued = await services.sessionTokens.issue(appId, principal.userId);
    return {
      appId,
      appUrl,
      targetOrigin: new URL(appUrl).origin,
      token: issued.token,
      userId: principal.userId,
      locale: locale ?? account?.locale ?? 'en',
      theme: theme ?? account?.theme ?? 'light',
      expiresAt: issued.expiresAt,
    };
  }

  @Authorized()
  @Mutation(() => Account, { description: 'Your locale (en, vi) and theme (light, dark), passed to the apps you open' })
  async updatePreferences(@Ctx() context: RequestContext, @Arg('locale', () => String, { nullable: true }) locale?: string | null, @Arg('theme', () => String, { nullable: true }) theme?: string | null): Promise<Account> {
    const { userId } = requirePrincipal(context);
    if (locale && !LOCALES.includes(locale)) throw badInput('locale', `locale must be one of ${LOCALES.join(', ')}`);
    if (theme && !THEMES.includes(theme)) throw badInput('theme', `theme must be one of ${THEMES.join(', ')}`);
    await context.services.db.getRepository(Account).update({ id: userId }, { ...(locale ? { locale } : {}), ...(theme ? { theme } : {}) });
    return (await context.services.identity.findAccount(userId))!;
  }

  @Authorized('ADMIN')
  @Mutation(() => String, { description: 'Admin: a new key signs session tokens from now on; the old one keeps verifying until its tokens expire. Returns the new kid' })
  rotateSessionSigningKey(@Ctx() context: RequestContext): Promise<string> {
    return context.services.sessionTokens.addKey();
  }
}

@Resolver(() => Installation)
export class InstallationResolver {
  @FieldResolver(() => App, { nullable: true, description: 'The app as listed' })
  async app(@Root() installation: Installation, @Ctx() { principal, services }: RequestContext): Promise<App | null> {
    return services.apps.find(principal, installation.appId);
  }
}

@Resolver(() => App)
export class AppEarningsResolver {
  @FieldResolver(() => AppEarnings, { nullable: true, description: 'The owner’s earnings from this app' })
  async earnings(@Root() app: App, @Ctx() { principal, services }: RequestContext): Promise<AppEarnings | null> {
    // As myEarnings: people only, so no API token reads revenue through an app it can see.
    if (!isOwner(app, signedInPerson(principal))) return null;
    return (await services.marketplace.earningsByApp(app.ownerId)).get(app.id) ?? null;
  }
}
