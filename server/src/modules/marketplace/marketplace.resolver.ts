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

@ObjectType({ description: 'A user’s balance of platform points (one point is worth POINT_VALUE_VND, 1,000 VND by default)' })
export class PointsBalance {
  @Field(() => ID, { description: 'Whose balance it is' })
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
  @Field(() => ID, { description: 'The app (app_<ULID>)' })
  appId: string;

  @Field({ description: 'The app’s current name' })
  appName: string;

  @Field(() => Int, { description: 'Paid purchases of the app (free installs are not sales)' })
  salesCount: number;

  @Field(() => SafeInt, { description: 'What buyers paid' })
  grossSalesVnd: number;

  @Field(() => SafeInt, { description: 'Your 80% of the gross sales' })
  developerShareVnd: number;

  @Field(() => Int, { description: 'Purchases of the app that were refunded' })
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
  @Field(() => ID, { description: 'The app being opened; the token’s aud' })
  appId: string;

  @Field({ description: 'The page to load in the iframe: the listed version for users, the version under work for its developer and reviewers' })
  appUrl: string;

  @Field({ description: 'The App URL’s origin: INIT_SESSION goes only there, and APP_READY is accepted only from there' })
  targetOrigin: string;

  @Field({ description: 'ES256 JWT: iss = platform origin, aud = app id, sub = user id, 5 minutes' })
  token: string;

  @Field(() => ID, { description: 'The signed-in user; the token’s sub' })
  userId: string;

  @Field({ description: 'For INIT_SESSION: "en" or "vi"; the launchApp argument, else the user’s preference' })
  locale: string;

  @Field({ description: 'For INIT_SESSION: "light" or "dark"; the launchApp argument, else the user’s preference' })
  theme: string;

  @Field({ description: 'When the token expires (5 minutes after issue)' })
  expiresAt: Date;
}

const LOCALES = ['en', 'vi'];
const THEMES = ['light', 'dark'];

@Resolver()
export class MarketplaceResolver {
  @Authorized()
  @Mutation(() => Installation, { description: 'Free apps (or a paid app you bought); sends app.installed' })
  installApp(@Arg('appId', () => ID, { description: 'An approved app' }) appId: string, @Ctx() context: RequestContext): Promise<Installation> {
    return context.services.marketplace.install(requirePrincipal(context), appId);
  }

  @Authorized()
  @Mutation(() => Purchase, { description: 'Paid apps: debits your points; sends app.purchased' })
  purchaseApp(@Arg('appId', () => ID, { description: 'An approved paid app you do not own yet' }) appId: string, @Ctx() context: RequestContext): Promise<Purchase> {
    return context.services.marketplace.purchase(requirePrincipal(context), appId);
  }

  @Authorized()
  @Mutation(() => Installation, { description: 'Sends app.uninstalled' })
  uninstallApp(@Arg('appId', () => ID, { description: 'An app in your library' }) appId: string, @Ctx() context: RequestContext): Promise<Installation> {
    return context.services.marketplace.uninstall(requirePrincipal(context), appId);
  }

  @Authorized('ADMIN')
  @Mutation(() => Purchase, { description: 'Admin: returns the points, reverses the revenue split, ends access; sends app.refunded' })
  refundPurchase(@Arg('purchaseId', { description: 'APP-<ms>-<suffix> of a paid, completed purchase' }) purchaseId: string, @Ctx() context: RequestContext, @Arg('reason', () => String, { nullable: true, description: 'Why, kept with the purchase' }) reason?: string | null): Promise<Purchase> {
    return context.services.marketplace.refund(requirePrincipal(context), purchaseId, reason ?? null);
  }

  @Authorized('ADMIN')
  @Mutation(() => PointsBalance, { description: 'Admin: adds points to a user’s balance' })
  async creditPoints(@Arg('userId', () => ID, { description: 'Whose balance' }) userId: string, @Arg('points', () => Int, { description: 'Points to add: 1..10,000,000' }) points: number, @Arg('reason', { description: 'Why; kept in the points journal' }) reason: string, @Ctx() context: RequestContext): Promise<PointsBalance> {
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
  @Query(() => PointsBalance, { description: 'Your points balance' })
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
    @Arg('appId', () => ID, { description: 'The app to open' }) appId: string,
    @Ctx() context: RequestContext,
    @Arg('locale', () => String, { nullable: true, description: '"en" or "vi" for this launch; your preference when null' }) locale?: string | null,
    @Arg('theme', () => String, { nullable: true, description: '"light" or "dark" for this launch; your preference when null' }) theme?: string | null,
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
  async updatePreferences(@Ctx() context: RequestContext, @Arg('locale', () => String, { nullable: true, description: '"en" or "vi"; unchanged when null' }) locale?: string | null, @Arg('theme', () => String, { nullable: true, description: '"light" or "dark"; unchanged when null' }) theme?: string | null): Promise<Account> {
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
