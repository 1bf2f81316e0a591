import { Arg, Authorized, Ctx, Field, FieldResolver, ID, Int, Mutation, ObjectType, Query, Resolver, Root } from 'type-graphql';
import { requirePrincipal, type RequestContext } from '../../platform/auth/context.js';
import { ConnectionType, PAGE_ARGS } from '../../platform/connection.js';
import { int32Field, SafeInt } from '../../platform/int64.js';
import { Account } from './account.entity.js';
import { ApiToken } from './api-token.entity.js';
import { CreateApiTokenInput } from './dto/create-api-token.input.js';
import type { IdentityService } from './identity.service.js';

@ObjectType({ description: 'A new API token: its value, shown only in this answer, and its record' })
export class CreatedApiToken {
  @Field(() => ID, { description: 'The token’s id (tok_<ULID>), as in apiToken.id; pass it to revokeApiToken' })
  id: string;

  @Field({ description: 'The token itself; shown only this once' })
  token: string;

  @Field(() => ApiToken, { description: 'The token as myApiTokens lists it' })
  apiToken: ApiToken;
}

@ObjectType({ description: 'A page of your API tokens (Relay connection)' })
export class ApiTokenConnection extends ConnectionType(ApiToken, 'ApiToken') {}

@Resolver(() => Account)
export class IdentityResolver {
  constructor(private readonly identity: IdentityService) {}

  @Query(() => Account, { nullable: true, description: 'The signed-in account; null when not signed in' })
  async me(@Ctx() { principal }: RequestContext): Promise<Account | null> {
    return principal ? this.identity.findAccount(principal.userId) : null;
  }

  @FieldResolver(() => [String], { description: 'DEVELOPER and USER for everyone; REVIEWER and ADMIN by configuration or an admin’s grant (admins also review)' })
  roles(@Root() account: Account): string[] {
    return this.identity.rolesOf(account);
  }

  @FieldResolver(() => [String], {
    description: 'The REVIEWER and ADMIN roles that PLATFORM_REVIEWER_EMAILS / PLATFORM_ADMIN_EMAILS give this account: revokeRole cannot take these away',
  })
  configuredRoles(@Root() account: Account): string[] {
    return this.identity.configuredRolesOf(account);
  }

  @Authorized('ADMIN')
  @Query(() => Account, { nullable: true, description: 'Admin: the account that signs in with this e-mail address (any case); null when there is none' })
  userByEmail(@Arg('email', { description: 'The address the user signs in with' }) email: string): Promise<Account | null> {
    return this.identity.findAccountByEmail(email);
  }

  @Authorized('ADMIN')
  @Mutation(() => Account, { description: 'Admin: gives REVIEWER or ADMIN to a user (nothing changes if they have it); their sessions have it from their next request' })
  grantRole(@Arg('userId', () => ID, { description: 'The user’s id' }) userId: string, @Arg('role', { description: 'REVIEWER or ADMIN' }) role: string): Promise<Account> {
    return this.identity.grantRole(userId, role);
  }

  @Authorized('ADMIN')
  @Mutation(() => Account, {
    description: 'Admin: takes back a granted REVIEWER or ADMIN role. CONFLICT when it would stay anyway: given by PLATFORM_*_EMAILS, REVIEWER of an admin, or your own ADMIN',
  })
  revokeRole(
    @Arg('userId', () => ID, { description: 'The user’s id' }) userId: string,
    @Arg('role', { description: 'REVIEWER or ADMIN' }) role: string,
    @Ctx() context: RequestContext,
  ): Promise<Account> {
    return this.identity.revokeRole(requirePrincipal(context), userId, role);
  }

  /** The contract's Int: a balance past 2^31 - 1 is a clear error naming pointsExact, never a wrong number. */
  @FieldResolver(() => Int, { description: 'Your points balance while it fits a 32-bit Int; past 2,147,483,647 an error that points to pointsExact' })
  points(@Root() account: Account): number {
    return int32Field(account.points, 'points', 'pointsExact');
  }

  @FieldResolver(() => SafeInt, { description: 'Your points balance, exact at any size (a 32-bit Int ends at 2,147,483,647)' })
  pointsExact(@Root() account: Account): number {
    return account.points;
  }

  @Authorized()
  @Query(() => ApiTokenConnection, { description: 'Your API tokens, newest first, revoked ones included (never their values)' })
  myApiTokens(
    @Ctx() context: RequestContext,
    @Arg('first', () => Int, { nullable: true, description: PAGE_ARGS.first }) first?: number | null,
    @Arg('after', () => String, { nullable: true, description: PAGE_ARGS.after }) after?: string | null,
    @Arg('last', () => Int, { nullable: true, description: PAGE_ARGS.last }) last?: number | null,
    @Arg('before', () => String, { nullable: true, description: PAGE_ARGS.before }) before?: string | null,
  ): Promise<ApiTokenConnection> {
    return this.identity.listApiTokens(requirePrincipal(context).userId, { first, after, last, before });
  }

  @Authorized()
  @Mutation(() => CreatedApiToken, { description: 'A token for scripts and integrations, acting for you within its scopes only; its value is shown once' })
  async createApiToken(
    @Arg('input', { description: 'Name, scopes and lifetime of the token' }) input: CreateApiTokenInput,
    @Ctx() context: RequestContext,
  ): Promise<CreatedApiToken> {
    const { token, apiToken } = await this.identity.createApiToken(requirePrincipal(context).userId, input);
    return { id: apiToken.id, token, apiToken };
  }

  @Authorized()
  @Mutation(() => Boolean, { description: 'Ends one of your API tokens at once (its open subscriptions close too); true also when already revoked' })
  revokeApiToken(@Arg('id', () => ID, { description: 'The token’s id (tok_<ULID>)' }) id: string, @Ctx() context: RequestContext): Promise<boolean> {
    return this.identity.revokeApiToken(requirePrincipal(context).userId, id);
  }
}
