import { Arg, Args, Authorized, Ctx, Field, FieldResolver, ID, Int, Mutation, ObjectType, Query, Resolver, Root } from 'type-graphql';
import { requirePrincipal, type RequestContext } from '../../platform/auth/context.js';
import { ConnectionType, PAGE_ARGS, readPage, toConnection } from '../../platform/connection.js';
import { marketplaceErrors } from './marketplace.errors.js';
import { int32Field, SafeInt } from '../../platform/int64.js';
import { App, AppStatus, isOwner, type AppService } from '../apps/index.js';
import { Account, type IdentityService, type SessionTokenService } from '../identity/index.js';
import { signedInPerson } from '../../platform/auth/principal.js';
import { BuyerPurchasesArgs } from './dto/buyer-purchases.args.js';
import { CreditPointsArgs } from './dto/credit-points.args.js';
import { InstallAppArgs } from './dto/install-app.args.js';
import { LaunchAppArgs } from './dto/launch-app.args.js';
import { PurchaseAppArgs } from './dto/purchase-app.args.js';
import { RefundPurchaseArgs } from './dto/refund-purchase.args.js';
import { UninstallAppArgs } from './dto/uninstall-app.args.js';
import { UpdatePreferencesArgs } from './dto/update-preferences.args.js';
import { Installation, Purchase, PurchaseKind } from './marketplace.entities.js';
import type { MarketplaceService } from './marketplace.service.js';

@ObjectType({ description: 'A page of your purchases and free installs (Relay connection)' })
export class PurchaseConnection extends ConnectionType(Purchase, 'Purchase') {}

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

// The mutations take @ArgsType classes (dto/): validated before they run, flat arguments on the wire as the contract fixes them.
@Resolver()
export class MarketplaceResolver {
  constructor(
    private readonly marketplace: MarketplaceService,
    private readonly identity: IdentityService,
    private readonly apps: AppService,
    private readonly sessionTokens: SessionTokenService,
  ) {}

  @Authorized()
  @Mutation(() => Installation, { description: 'Free apps (or a paid app you bought); sends app.installed' })
  installApp(@Args() { appId }: InstallAppArgs, @Ctx() context: RequestContext): Promise<Installation> {
    return this.marketplace.install(requirePrincipal(context), appId);
  }

  @Authorized()
  @Mutation(() => Purchase, { description: 'Paid apps: debits your points; sends app.purchased' })
  purchaseApp(@Args() { appId }: PurchaseAppArgs, @Ctx() context: RequestContext): Promise<Purchase> {
    return this.marketplace.purchase(requirePrincipal(context), appId);
  }

  @Authorized()
  @Mutation(() => Installation, { description: 'Sends app.uninstalled' })
  uninstallApp(@Args() { appId }: UninstallAppArgs, @Ctx() context: RequestContext): Promise<Installation> {
    return this.marketplace.uninstall(requirePrincipal(context), appId);
  }

  @Authorized('ADMIN')
  @Mutation(() => Purchase, { description: 'Admin: returns the points, reverses the revenue split, ends access; sends app.refunded' })
  refundPurchase(@Args() { purchaseId, reason }: RefundPurchaseArgs, @Ctx() context: RequestContext): Promise<Purchase> {
    return this.marketplace.refund(requirePrincipal(context), purchaseId, reason ?? null);
  }

  @Authorized('ADMIN')
  @Mutation(() => PointsBalance, { description: 'Admin: adds points to a user’s balance' })
  async creditPoints(@Args() { userId, points, reason }: CreditPointsArgs, @Ctx() context: RequestContext): Promise<PointsBalance> {
    const balance = await this.marketplace.creditPoints(requirePrincipal(context), userId, points, reason);
    return new PointsBalance(balance.userId, balance.points);
  }

  @Authorized()
  @Query(() => [Installation], { description: 'Apps you installed or bought, newest first' })
  myLibrary(@Ctx() context: RequestContext): Promise<Installation[]> {
    return this.marketplace.library(requirePrincipal(context).userId);
  }

  @Authorized()
  @Query(() => PurchaseConnection, { description: 'Your purchases and free installs, newest first' })
  myPurchases(
    @Ctx() context: RequestContext,
    @Arg('appId', () => ID, { nullable: true, description: 'Only those of this app (app_<ULID>)' }) appId?: string | null,
    @Arg('kind', () => PurchaseKind, { nullable: true, description: 'Only those of this kind, e.g. PURCHASE for what was paid for' }) kind?: PurchaseKind | null,
    @Arg('first', () => Int, { nullable: true, description: PAGE_ARGS.first }) first?: number | null,
    @Arg('after', () => String, { nullable: true, description: PAGE_ARGS.after }) after?: string | null,
    @Arg('last', () => Int, { nullable: true, description: PAGE_ARGS.last }) last?: number | null,
    @Arg('before', () => String, { nullable: true, description: PAGE_ARGS.before }) before?: string | null,
  ): Promise<PurchaseConnection> {
    return this.marketplace.purchases(requirePrincipal(context).userId, { appId, kind }, { first, after, last, before });
  }

  @Authorized('ADMIN')
  @Query(() => PurchaseConnection, {
    description: 'Admin: the purchases and free installs of the account that signs in with this e-mail address (exact, any case), newest first; empty when none does',
  })
  async purchasesByBuyerEmail(
    @Args() { email }: BuyerPurchasesArgs,
    @Arg('first', () => Int, { nullable: true, description: PAGE_ARGS.first }) first?: number | null,
    @Arg('after', () => String, { nullable: true, description: PAGE_ARGS.after }) after?: string | null,
    @Arg('last', () => Int, { nullable: true, description: PAGE_ARGS.last }) last?: number | null,
    @Arg('before', () => String, { nullable: true, description: PAGE_ARGS.before }) before?: string | null,
  ): Promise<PurchaseConnection> {
    // The account userByEmail finds for the same address, so a refund and a credit for one person's message agree on who that is.
    const buyer = await this.identity.findAccountByEmail(email);
    const page = { first, after, last, before };
    // No account, no purchases; the page arguments are still checked as the list would check them.
    if (!buyer) return toConnection([], readPage(page, ['string', 'string']), () => []);
    return this.marketplace.purchases(buyer.id, {}, page);
  }

  @Authorized()
  @Query(() => PointsBalance, { description: 'Your points balance' })
  async myPointsBalance(@Ctx() context: RequestContext): Promise<PointsBalance> {
    const { userId } = requirePrincipal(context);
    const account = await this.identity.findAccount(userId);
    return new PointsBalance(userId, account?.points ?? 0);
  }

  @Authorized()
  @Query(() => [AppEarnings], { description: 'Sales, your share, refunds and the net for each of your apps' })
  myEarnings(@Ctx() context: RequestContext): Promise<AppEarnings[]> {
    return this.marketplace.earnings(requirePrincipal(context).userId);
  }

  @Authorized()
  @Mutation(() => AppLaunch, { description: 'A session token for INIT_SESSION; for users who have the app, its developer, and reviewers of an app under review' })
  async launchApp(@Args() { appId, locale, theme }: LaunchAppArgs, @Ctx() context: RequestContext): Promise<AppLaunch> {
    const principal = requirePrincipal(context);
    if (principal.kind !== 'session') throw marketplaceErrors.sessionRequired();
    const { app, view } = await this.apps.requireVisible(principal, appId);
    const underReview = app.status === AppStatus.PENDING_REVIEW && principal.roles.has('REVIEWER');
    // Developers and reviewers open the version being worked on; users the listed one.
    const canSeeCurrent = isOwner(app, principal) || underReview;
    if (!canSeeCurrent && !(await this.marketplace.owns(principal.userId, appId))) throw marketplaceErrors.notOwnedToOpen();
    const appUrl = canSeeCurrent ? app.appUrl : view.appUrl;
    const account = await this.identity.findAccount(principal.userId);
    const issued = await this.sessionTokens.issue(appId, principal.userId);
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
  updatePreferences(@Args() preferences: UpdatePreferencesArgs, @Ctx() context: RequestContext): Promise<Account> {
    return this.identity.updatePreferences(requirePrincipal(context).userId, preferences);
  }

  @Authorized('ADMIN')
  @Mutation(() => String, { description: 'Admin: a new key signs session tokens from now on; the old one keeps verifying until its tokens expire. Returns the new kid' })
  rotateSessionSigningKey(): Promise<string> {
    return this.sessionTokens.addKey();
  }
}

@Resolver(() => Installation)
export class InstallationResolver {
  constructor(private readonly apps: AppService) {}

  @FieldResolver(() => App, { nullable: true, description: 'The app as listed' })
  async app(@Root() installation: Installation, @Ctx() { principal }: RequestContext): Promise<App | null> {
    return this.apps.find(principal, installation.appId);
  }
}

@Resolver(() => Purchase)
export class PurchaseResolver {
  constructor(private readonly apps: AppService) {}

  @FieldResolver(() => App, { nullable: true, description: 'The app as listed (a page of purchases reads its apps together); null when the caller may not see it' })
  async app(@Root() purchase: Purchase, @Ctx() { principal }: RequestContext): Promise<App | null> {
    return this.apps.find(principal, purchase.appId);
  }
}

@Resolver(() => App)
export class AppEarningsResolver {
  constructor(private readonly marketplace: MarketplaceService) {}

  @FieldResolver(() => AppEarnings, { nullable: true, description: 'The owner’s earnings from this app' })
  async earnings(@Root() app: App, @Ctx() { principal }: RequestContext): Promise<AppEarnings | null> {
    // As myEarnings: people only, so no API token reads revenue through an app it can see.
    if (!isOwner(app, signedInPerson(principal))) return null;
    return (await this.marketplace.earningsByApp(app.ownerId)).get(app.id) ?? null;
  }
}
