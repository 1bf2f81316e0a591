import { Arg, Authorized, Ctx, Field, FieldResolver, ID, Int, Mutation, ObjectType, Query, Resolver, Root } from 'type-graphql';
import { tokenScope } from '../../platform/auth/auth-checker.js';
import { ConnectionType, PAGE_ARGS } from '../../platform/connection.js';
import { requirePrincipal, type RequestContext } from '../../platform/auth/context.js';
import { principalWithScope } from '../../platform/auth/principal.js';
import type { IdentityService } from '../identity/index.js';
import { App } from './app.entity.js';
import { CATEGORIES } from './app.types.js';
import { SubmitAppInput } from './dto/submit-app.input.js';
import { UpdateAppInput } from './dto/update-app.input.js';
import type { AppService } from './app.service.js';

@ObjectType({ description: 'A store category apps are listed under' })
export class Category {
  @Field({ description: 'The value to submit as an app category, e.g. "games"' })
  id: string;

  @Field({ description: 'Same as id' })
  name: string;

  @Field({ description: 'For display, e.g. "Games"' })
  label: string;
}

@ObjectType({ description: 'A page of apps (Relay connection)' })
export class AppConnection extends ConnectionType(App, 'App') {}

const CATEGORY_LIST: Category[] = CATEGORIES.map((id) => ({ id, name: id, label: id.charAt(0).toUpperCase() + id.slice(1) }));

// App's fields that other features answer (reviewDecisions, preChecks, clientSecretAudit) are resolved by
// those features (review/app-review-fields.resolver.ts, secrets/app-secret-fields.resolver.ts): apps imports neither.
@Resolver(() => App)
export class AppResolver {
  constructor(
    private readonly apps: AppService,
    private readonly identity: IdentityService,
  ) {}

  @Query(() => [Category], { description: 'Every store category, the values an app’s category takes' })
  categories(): Category[] {
    return CATEGORY_LIST;
  }

  @Query(() => App, { nullable: true, description: 'Owner, reviewers and admins see any version; everyone else the approved listing' })
  app(@Arg('id', () => ID, { description: 'app_<ULID>' }) id: string, @Ctx() { principal }: RequestContext): Promise<App | null> {
    return this.apps.find(principalWithScope(principal, 'apps:read'), id);
  }

  @Authorized(tokenScope('apps:read'))
  @Query(() => [App], { description: 'Your apps, newest first (at most MAX_APPS_PER_DEVELOPER, 100 by default)' })
  myApps(@Ctx() context: RequestContext): Promise<App[]> {
    return this.apps.mine(requirePrincipal(context).userId);
  }

  @Query(() => AppConnection, { description: 'Approved apps as listed, newest listing first; anyone may ask' })
  storeApps(
    @Arg('category', () => String, { nullable: true, description: 'Only this category (one of `categories`)' }) category?: string | null,
    @Arg('search', () => String, { nullable: true, description: 'Only apps whose name or short description contains this text (any case)' }) search?: string | null,
    @Arg('first', () => Int, { nullable: true, description: PAGE_ARGS.first }) first?: number | null,
    @Arg('after', () => String, { nullable: true, description: PAGE_ARGS.after }) after?: string | null,
    @Arg('last', () => Int, { nullable: true, description: PAGE_ARGS.last }) last?: number | null,
    @Arg('before', () => String, { nullable: true, description: PAGE_ARGS.before }) before?: string | null,
  ): Promise<AppConnection> {
    return this.apps.store({ category, search, first, after, last, before });
  }

  @Authorized('REVIEWER')
  @Query(() => AppConnection, { description: 'Reviewer: apps pending review, oldest submission first' })
  reviewQueue(
    @Arg('first', () => Int, { nullable: true, description: PAGE_ARGS.first }) first?: number | null,
    @Arg('after', () => String, { nullable: true, description: PAGE_ARGS.after }) after?: string | null,
    @Arg('last', () => Int, { nullable: true, description: PAGE_ARGS.last }) last?: number | null,
    @Arg('before', () => String, { nullable: true, description: PAGE_ARGS.before }) before?: string | null,
  ): Promise<AppConnection> {
    return this.apps.reviewQueue({ first, after, last, before });
  }

  @Authorized()
  @Mutation(() => App, { description: 'A new app, PENDING_REVIEW; its client secret is created with it' })
  submitApp(@Arg('input', { description: 'The app’s listing, pricing and webhook URL' }) input: SubmitAppInput, @Ctx() context: RequestContext): Promise<App> {
    return this.apps.submit(requirePrincipal(context), input);
  }

  @Authorized()
  @Mutation(() => App, { description: 'A REJECTED app returns to PENDING_REVIEW; an APPROVED one too when its listing changes' })
  updateApp(
    @Arg('id', () => ID, { description: 'One of your apps (app_<ULID>)' }) id: string,
    @Arg('input', { description: 'The fields to change' }) input: UpdateAppInput,
    @Ctx() context: RequestContext,
  ): Promise<App> {
    return this.apps.update(requirePrincipal(context), id, input);
  }

  @FieldResolver(() => String, { description: 'Who made the app, as the store shows it: the part before the @ of its developer’s sign-in e-mail' })
  async developerName(@Root() app: App): Promise<string> {
    // Accounts have no display name; the local part names the developer without publishing the address.
    const owner = await this.identity.accountById(app.ownerId);
    return owner ? developerNameOf(owner.email) : '';
  }

  @FieldResolver(() => Int, {
    nullable: true,
    description:
      'The price in VND, what a purchase charges: pricePoints x POINT_VALUE_VND (1,000 VND a point by default); null when FREE, and when the price is more than one purchase can charge at this server’s POINT_VALUE_VND',
  })
  priceVnd(@Root() app: App): number | null {
    return this.apps.priceVnd(app);
  }

  @FieldResolver(() => Boolean, { description: 'Pending review past its due time' })
  reviewOverdue(@Root() app: App): boolean {
    return app.status === 'PENDING_REVIEW' && app.reviewDueAt.getTime() < Date.now();
  }
}

/** "ana.nguyen+plaza@example.com" -> "ana.nguyen": a sub-address tag is the developer's own business. */
export function developerNameOf(email: string): string {
  return email.split('@')[0]!.split('+')[0]!;
}
