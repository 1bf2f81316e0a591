import { hash } from 'node:crypto';
import { DataSource, In, IsNull, type EntityManager } from 'typeorm';
import type { Config } from '../../config.js';
import { readPage, toConnection, type Connection, type PageArgs } from '../../platform/connection.js';
import { badInput, notFound } from '../../platform/errors.js';
import { identityErrors } from './identity.errors.js';
import { newCredential, newId } from '../../platform/ids.js';
import { perTickLoader } from '../../platform/per-tick-loader.js';
import { queryPrepared } from '../../platform/prepared-query.js';
import { Topic, type PostgresPubSub } from '../../platform/pubsub.js';
import { Account } from './account.entity.js';
import { ApiToken } from './api-token.entity.js';
import { Session } from './session.entity.js';
import type { Principal } from '../../platform/auth/principal.js';
import { API_TOKEN_SCOPES, isApiTokenScope, Role } from '../../platform/auth/roles.js';
import { API_TOKEN_ROLES, GRANTABLE_ROLES, grantableRole, rolesOf } from './roles.js';
import { CredentialCache } from './credential-cache.js';

// One-shot: no Hash object per request (the token is hashed on every signed-in request, cached or not).
const sha256 = (text: string) => hash('sha256', text, 'hex');

/** How often a token's last-used time is written: often enough to be useful, rarely enough to cost nothing. */
const LAST_USED_PRECISION_MS = 60_000;

export const SESSION_TOKEN_PREFIX = 'plz_s_';
export const API_TOKEN_PREFIX = 'plz_at_';
/**
 * Live (unexpired, unrevoked) API tokens one account may hold. Each token has a rate budget of its own
 * (RATE_LIMIT_PER_API_TOKEN) under its account's (RATE_LIMIT_PER_ACCOUNT): a bound on both what one
 * account keeps authenticating and what it lists.
 */
export const MAX_LIVE_API_TOKENS = 50;

/** The development provider's stable user id for an e-mail address. */
export const devUserId = (email: string) => `dev_${sha256(`plaza-dev:${email.toLowerCase()}`).slice(0, 24)}`;

export interface SignedIn {
  token: string;
  expiresAt: Date;
  account: Account;
}

/**
 * A credential as verified: the principal it proves (an API token's without its owner's app ids) and, for an API
 * token, its owner's app ids when it may read deliveries, and when its last use was written.
 */
interface Verified {
  userId: string;
  principal: Principal;
  ownedAppIds: readonly string[] | null;
  lastUsedAt: number | null;
}

export class IdentityService {
  /** Who a token proves, kept for seconds and forgotten on every process when it changes (credential-cache.ts). */
  readonly verified: CredentialCache<Verified>;

  constructor(
    private readonly db: DataSource,
    private readonly config: Config,
    private readonly pubSub: PostgresPubSub,
  ) {
    this.verified = new CredentialCache<Verified>(pubSub);
  }

  rolesOf(account: Pick<Account, 'email' | 'grantedRoles'>) {
    return rolesOf(account.email, account.grantedRoles, this.config);
  }

  /** Creates or refreshes the account an identity provider vouched for, and opens a session. */
  async signIn(identity: { id: string; email: string; provider: 'dev' | 'oidc' }): Promise<SignedIn> {
    const now = new Date();
    const email = identity.email.trim().toLowerCase();
    const signedIn = await this.db.transaction(async (manager) => {
      await manager
        .createQueryBuilder()
        .insert()
        .into(Account)
        .values({ id: identity.id, email, identityProvider: identity.provider, lastSignInAt: now, grantedRoles: [], points: 0 })
        .orUpdate(['email', 'last_sign_in_at'], ['id'])
        .execute();
      const account = await manager.findOneByOrFail(Account, { id: identity.id });
      const token = newCredential(SESSION_TOKEN_PREFIX);
      const expiresAt = new Date(now.getTime() + this.config.sessionTtlMs);
      await manager.insert(Session, { id: newId.session(), tokenHash: sha256(token), userId: account.id, expiresAt });
      return { token, expiresAt, account };
    });
    // The address may have changed, and roles with it (PLATFORM_*_EMAILS): the account's other sessions are read anew.
    this.verified.forgetAccount(signedIn.account.id);
    return signedIn;
  }

  /**
   * `userId` has a new app (committed): a token of theirs kept here carries their app ids, so it is read anew on
   * its next use, not when the database's notice arrives a moment later. Nothing to wait for elsewhere: a
   * process that has not heard yet only shows the new app's deliveries a moment later, it grants nothing.
   */
  appsOfAccountChanged(userId: string): void {
    this.verified.forgetAccount(userId);
  }

  /** Ends the session; its WebSocket connections close on every server process once this commits. */
  async signOut(token: string): Promise<void> {
    const ended = await this.db.transaction(async (manager) => {
      const [ended]: { id: string; user_id: string }[] = (await manager.query('DELETE FROM sessions WHERE token_hash = $1 RETURNING id, user_id', [sha256(token)]))[0] ?? [];
      if (ended) await this.pubSub.publishIn(manager, Topic.CREDENTIAL_REVOKED, ended.id, {});
      return ended;
    });
    if (ended) await this.changed(ended.user_id);
  }

  /**
   * After a change of `userId`'s credentials (sessions, tokens, roles) committed: forgotten here at once, and
   * answered only once every other process has heard the database's notice of it, so none accepts what changed
   * on the client's next request (bounded by REACH_WINDOW_MS, and CREDENTIAL_CACHE_TTL_MS beyond it).
   */
  private async changed(userId: string): Promise<void> {
    this.verified.forgetAccount(userId);
    await this.pubSub.reachedEverywhere();
  }

  private async changeCredentialsOf<T>(userId: string, change: (changed: () => void) => Promise<T>): Promise<T> {
    let changed = false;
    const result = await change(() => (changed = true));
    if (changed) await this.changed(userId);
    return result;
  }

  /**
   * Turns a bearer token or session cookie into a principal. An unknown, expired or revoked token
   * is an error rather than anonymity, so a client learns at once why it is not signed in.
   */
  async authenticate(token: string, { ownedApps = false }: { ownedApps?: boolean } = {}): Promise<Principal> {
    if (token.startsWith(SESSION_TOKEN_PREFIX)) return this.authenticateSession(token);
    if (token.startsWith(API_TOKEN_PREFIX)) return this.authenticateApiToken(token, ownedApps);
    throw identityErrors.notAPlazaToken();
  }

  private async authenticateSession(token: string): Promise<Principal> {
    const hash = sha256(token);
    const known = this.verified.get(hash);
    if (known?.principal.kind === 'session') {
      if (known.principal.expiresAt!.getTime() <= Date.now()) throw identityErrors.sessionExpired();
      return known.principal;
    }
    const generation = this.verified.generation;
    const row = await this.db
      .getRepository(Session)
      .createQueryBuilder('s')
      .innerJoin(Account, 'a', 'a.id = s.user_id')
      .select(['s.id AS session_id', 's.expires_at AS expires_at', 'a.id AS user_id', 'a.email AS email', 'a.granted_roles AS granted_roles'])
      .where('s.token_hash = :hash', { hash })
      .getRawOne<{ session_id: string; expires_at: Date; user_id: string; email: string; granted_roles: string[] }>();
    if (!row) throw identityErrors.signedOut();
    if (row.expires_at.getTime() <= Date.now()) throw identityErrors.sessionExpired();
    const principal: Principal = {
      kind: 'session',
      userId: row.user_id,
      email: row.email,
      roles: new Set(rolesOf(row.email, row.granted_roles, this.config)),
      sessionId: row.session_id,
      expiresAt: row.expires_at,
    };
    this.verified.put(hash, { userId: row.user_id, principal, ownedAppIds: null, lastUsedAt: null }, generation);
    return principal;
  }

  /**
   * `ownedApps`: with the owner's app ids when the token may read deliveries (for one HTTP request: a graphql-ws
   * connection's principal outlives them). They are read in the token's own statement and kept with it: the
   * database notices the owner's apps as it notices the token (migration CredentialNotices).
   */
  private async authenticateApiToken(token: string, ownedApps: boolean): Promise<Principal> {
    const hash = sha256(token);
    const known = this.verified.get(hash);
    const verified = known?.principal.kind === 'apiToken' ? known : await this.readApiToken(hash);
    const { principal } = verified;
    // Always so: readApiToken keeps only API tokens, under the token's own hash.
    if (principal.kind !== 'apiToken') throw identityErrors.apiTokenUnknown();
    if (principal.expiresAt!.getTime() <= Date.now()) throw identityErrors.apiTokenExpired(principal.expiresAt!);
    const now = Date.now();
    if (verified.lastUsedAt === null || now - verified.lastUsedAt > LAST_USED_PRECISION_MS) {
      // Taken before the write, so the requests that arrive while it runs do not write it too; given back should it fail.
      const previous = verified.lastUsedAt;
      verified.lastUsedAt = now;
      try {
        await this.db.getRepository(ApiToken).update({ id: principal.tokenId }, { lastUsedAt: new Date(now) });
      } catch (err) {
        verified.lastUsedAt = previous;
        throw err;
      }
    }
    return ownedApps && verified.ownedAppIds ? { ...principal, ownedAppIds: verified.ownedAppIds } : principal;
  }

  /** The token as the database has it, kept when valid; unknown and revoked tokens are refused, and never kept. */
  private async readApiToken(hash: string): Promise<Verified> {
    const generation = this.verified.generation;
    // Every request made with a token not yet verified runs this: prepared once per connection, no query builder.
    const [row] = await queryPrepared<{
      token_id: string;
      scopes: string[];
      expires_at: Date;
      revoked_at: Date | null;
      last_used_at: Date | null;
      user_id: string;
      email: string;
      app_ids: string | null;
    }>(
      this.db.manager,
      'plaza_verify_api_token',
      `SELECT t.id AS token_id, t.scopes, t.expires_at, t.revoked_at, t.last_used_at, a.id AS user_id, a.email,
              CASE WHEN 'deliveries:read' = ANY(t.scopes) THEN coalesce((SELECT string_agg(p.id, ',') FROM apps p WHERE p.owner_id = a.id), '') END AS app_ids
         FROM api_tokens t JOIN accounts a ON a.id = t.owner_id
        WHERE t.token_hash = $1`,
      [hash],
    );
    if (!row) throw identityErrors.apiTokenUnknown();
    if (row.revoked_at) throw identityErrors.apiTokenRevoked();
    if (row.expires_at.getTime() <= Date.now()) throw identityErrors.apiTokenExpired(row.expires_at);
    const verified: Verified = {
      userId: row.user_id,
      principal: {
        kind: 'apiToken',
        userId: row.user_id,
        email: row.email,
        // Never the account's REVIEWER or ADMIN: a token acts only as its scopes say (roles.ts).
        roles: new Set(API_TOKEN_ROLES),
        tokenId: row.token_id,
        scopes: new Set(row.scopes),
        expiresAt: row.expires_at,
      },
      // One text split here: pg's array reader cost more than the ids' own statement (app ids hold no commas).
      ownedAppIds: row.app_ids === null ? null : row.app_ids ? row.app_ids.split(',') : [],
      lastUsedAt: row.last_used_at?.getTime() ?? null,
    };
    this.verified.put(hash, verified, generation);
    return verified;
  }

  /** In the caller's transaction when given its `manager` (marketplace reads a balance beside its debit). */
  async findAccount(id: string, manager: EntityManager = this.db.manager): Promise<Account | null> {
    return manager.getRepository(Account).findOneBy({ id });
  }

  /** One account by id, for fields resolved on every item of a list (a store page's developer names): one query per page. */
  readonly accountById = perTickLoader(
    async (ids: string[]) => new Map((await this.db.getRepository(Account).findBy({ id: In(ids) })).map((account) => [account.id, account] as const)),
    (): Account | null => null,
  );

  /** The account that signs in with this address (any case); the most recently active one should two providers share it. */
  async findAccountByEmail(email: string): Promise<Account | null> {
    const address = email.trim().toLowerCase();
    if (!address) throw badInput('email', 'email is required: the address the user signs in with');
    return this.db.getRepository(Account).findOne({ where: { email: address }, order: { lastSignInAt: 'DESC' } });
  }

  /** The roles configuration gives this account by its e-mail: an admin's grant or revocation cannot change them. */
  configuredRolesOf(account: Pick<Account, 'email'>): Role[] {
    return rolesOf(account.email, [], this.config).filter((role) => GRANTABLE_ROLES.includes(role));
  }

  /**
   * An admin gives REVIEWER or ADMIN to an account (a no-op when it has it). The user's sessions act with it from
   * their next request, on every process (their verified credentials are forgotten when the change commits).
   */
  async grantRole(userId: string, rawRole: string): Promise<Account> {
    const role = grantableRole(rawRole);
    return this.changeCredentialsOf(userId, (changed) =>
      this.db.transaction(async (manager) => {
        const account = await manager.getRepository(Account).findOne({ where: { id: userId }, lock: { mode: 'pessimistic_write' } });
        if (!account) throw notFound('User');
        if (!account.grantedRoles.includes(role)) {
          account.grantedRoles = [...account.grantedRoles, role];
          await manager.update(Account, { id: userId }, { grantedRoles: account.grantedRoles });
          changed();
        }
        return account;
      }),
    );
  }

  /**
   * An admin takes back a granted role. A role that would stay anyway is refused (CONFLICT) rather than
   * silently kept: one from PLATFORM_*_EMAILS, REVIEWER of an admin (admins review), and an admin's own
   * ADMIN (so the platform cannot lose its last admin by a slip). Not holding the role is a no-op.
   */
  async revokeRole(actor: Principal, userId: string, rawRole: string): Promise<Account> {
    const role = grantableRole(rawRole);
    return this.changeCredentialsOf(userId, (changed) =>
      this.db.transaction(async (manager) => {
        const account = await manager.getRepository(Account).findOne({ where: { id: userId }, lock: { mode: 'pessimistic_write' } });
        if (!account) throw notFound('User');
        if (role === Role.ADMIN && account.id === actor.userId) throw identityErrors.ownAdminRole();
        const email = account.email.toLowerCase();
        const byConfiguration = role === Role.ADMIN ? this.config.adminEmails.has(email) : this.config.reviewerEmails.has(email);
        if (byConfiguration) {
          const variable = role === Role.ADMIN ? 'PLATFORM_ADMIN_EMAILS' : 'PLATFORM_REVIEWER_EMAILS';
          throw identityErrors.roleFromConfiguration(account.email, role, variable);
        }
        const remaining = account.grantedRoles.filter((r) => r !== role);
        if (role === Role.REVIEWER && rolesOf(account.email, remaining, this.config).includes(Role.ADMIN)) {
          throw identityErrors.roleImpliedByAdmin(account.email);
        }
        if (remaining.length !== account.grantedRoles.length) {
          account.grantedRoles = remaining;
          await manager.update(Account, { id: userId }, { grantedRoles: remaining });
          // HTTP requests read roles afresh once the change is heard, but open WebSockets keep those they connected with: close them
          // on every process once this commits.
          await this.pubSub.publishIn(manager, Topic.ROLES_REVOKED, userId, {});
          changed();
        }
        return account;
      }),
    );
  }

  /** Sets the account's locale and theme, each only when given; the account as it now is. */
  async updatePreferences(id: string, preferences: { locale?: string | null; theme?: string | null }): Promise<Account> {
    const { locale, theme } = preferences;
    await this.db.getRepository(Account).update({ id }, { ...(locale ? { locale } : {}), ...(theme ? { theme } : {}) });
    return this.db.getRepository(Account).findOneByOrFail({ id });
  }

  async createApiToken(ownerId: string, input: { name: string; scopes: string[]; expiresInDays?: number | null }): Promise<{ token: string; apiToken: ApiToken }> {
    const unknown = input.scopes.filter((s) => !isApiTokenScope(s));
    if (unknown.length) throw badInput('scopes', `Unknown scope ${unknown.join(', ')}; choose from ${Object.keys(API_TOKEN_SCOPES).join(', ')}`);
    const days = input.expiresInDays ?? this.config.apiTokenDefaultTtlDays;
    const token = newCredential(API_TOKEN_PREFIX);
    const apiToken = this.db.getRepository(ApiToken).create({
      id: newId.apiToken(),
      ownerId,
      name: input.name.trim(),
      scopes: [...new Set(input.scopes)],
      tokenHash: sha256(token),
      tokenPrefix: token.slice(0, API_TOKEN_PREFIX.length + 4),
      expiresAt: new Date(Date.now() + days * 86_400_000),
      lastUsedAt: null,
      revokedAt: null,
    });
    await this.db.transaction(async (manager) => {
      // One account's creations one at a time, so two asking for its 50th cannot both pass the count.
      await manager.query('SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE', [ownerId]);
      const [{ live }] = await manager.query('SELECT count(*)::int AS live FROM api_tokens WHERE owner_id = $1 AND revoked_at IS NULL AND expires_at > now()', [ownerId]);
      if (live >= MAX_LIVE_API_TOKENS) {
        throw identityErrors.tooManyTokens(MAX_LIVE_API_TOKENS);
      }
      await manager.getRepository(ApiToken).insert(apiToken);
    });
    return { token, apiToken };
  }

  async revokeApiToken(ownerId: string, id: string): Promise<boolean> {
    const apiToken = await this.db.getRepository(ApiToken).findOneBy({ id });
    if (!apiToken) throw notFound('API token');
    if (apiToken.ownerId !== ownerId) throw identityErrors.notTokenOwner();
    if (apiToken.revokedAt) return true;
    // Revoked in the same commit that tells every server process to close the token's WebSockets.
    await this.changeCredentialsOf(ownerId, (changed) =>
      this.db.transaction(async (manager) => {
        const { affected } = await manager.getRepository(ApiToken).update({ id, revokedAt: IsNull() }, { revokedAt: new Date() });
        await this.pubSub.publishIn(manager, Topic.CREDENTIAL_REVOKED, id, {});
        if (affected) changed();
      }),
    );
    return true;
  }

  /** Newest first, revoked and expired ones included (they only grow: paged). Ids are tok_<ULID>, so in creation order. */
  async listApiTokens(ownerId: string, args: PageArgs): Promise<Connection<ApiToken>> {
    const page = readPage(args, ['string']);
    const query = this.db.getRepository(ApiToken).createQueryBuilder('t').where('t.owner_id = :ownerId', { ownerId });
    if (page.after) query.andWhere('t.id < :after', { after: page.after[0] });
    if (page.before) query.andWhere('t.id > :before', { before: page.before[0] });
    const rows = await query
      .orderBy('t.id', page.backward ? 'ASC' : 'DESC')
      .take(page.limit + 1)
      .getMany();
    return toConnection(rows, page, (token) => [token.id]);
  }
}
