import { createHash } from 'node:crypto';
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

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

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

export class IdentityService {
  constructor(
    private readonly db: DataSource,
    private readonly config: Config,
    private readonly pubSub: PostgresPubSub,
  ) {}

  rolesOf(account: Pick<Account, 'email' | 'grantedRoles'>) {
    return rolesOf(account.email, account.grantedRoles, this.config);
  }

  /** Creates or refreshes the account an identity provider vouched for, and opens a session. */
  async signIn(identity: { id: string; email: string; provider: 'dev' | 'oidc' }): Promise<SignedIn> {
    const now = new Date();
    const email = identity.email.trim().toLowerCase();
    return this.db.transaction(async (manager) => {
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
  }

  /** Ends the session; its WebSocket connections close on every server process once this commits. */
  async signOut(token: string): Promise<void> {
    await this.db.transaction(async (manager) => {
      const [ended]: { id: string }[] = (await manager.query('DELETE FROM sessions WHERE token_hash = $1 RETURNING id', [sha256(token)]))[0] ?? [];
      if (ended) await this.pubSub.publishIn(manager, Topic.CREDENTIAL_REVOKED, ended.id, {});
    });
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
    const row = await this.db
      .getRepository(Session)
      .createQueryBuilder('s')
      .innerJoin(Account, 'a', 'a.id = s.user_id')
      .select(['s.id AS session_id', 's.expires_at AS expires_at', 'a.id AS user_id', 'a.email AS email', 'a.granted_roles AS granted_roles'])
      .where('s.token_hash = :hash', { hash: sha256(token) })
      .getRawOne<{ session_id: string; expires_at: Date; user_id: string; email: string; granted_roles: string[] }>();
    if (!row) throw identityErrors.signedOut();
    if (row.expires_at.getTime() <= Date.now()) throw identityErrors.sessionExpired();
    return {
      kind: 'session',
      userId: row.user_id,
      email: row.email,
      roles: new Set(rolesOf(row.email, row.granted_roles, this.config)),
      sessionId: row.session_id,
      expiresAt: row.expires_at,
    };
  }

  /**
   * `ownedApps`: also the owner's app ids when the token may read deliveries, in the same statement (one
   * round trip less for the Webhook Logs; for one request only, never for a connection that outlives it).
   */
  private async authenticateApiToken(token: string, ownedApps: boolean): Promise<Principal> {
    // Every request made with a token runs this: prepared once per connection, no query builder.
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
      'plaza_authenticate_api_token_with_apps',
      `SELECT t.id AS token_id, t.scopes, t.expires_at, t.revoked_at, t.last_used_at, a.id AS user_id, a.email,
              CASE WHEN $2::boolean AND 'deliveries:read' = ANY(t.scopes) THEN coalesce((SELECT string_agg(p.id, ',') FROM apps p WHERE p.owner_id = a.id), '') END AS app_ids
         FROM api_tokens t JOIN accounts a ON a.id = t.owner_id
        WHERE t.token_hash = $1`,
      [sha256(token), ownedApps],
    );
    if (!row) throw identityErrors.apiTokenUnknown();
    if (row.revoked_at) throw identityErrors.apiTokenRevoked();
    if (row.expires_at.getTime() <= Date.now()) throw identityErrors.apiTokenExpired(row.expires_at);
    if (!row.last_used_at || Date.now() - row.last_used_at.getTime() > LAST_USED_PRECISION_MS) {
      await this.db.getRepository(ApiToken).update({ id: row.token_id }, { lastUsedAt: new Date() });
    }
    return {
      kind: 'apiToken',
      userId: row.user_id,
      email: row.email,
      // Never the account's REVIEWER or ADMIN: a token acts only as its scopes say (roles.ts).
      roles: new Set(API_TOKEN_ROLES),
      tokenId: row.token_id,
      scopes: new Set(row.scopes),
      expiresAt: row.expires_at,
      // One text split here: pg's array reader cost more than the ids' own statement (app ids hold no commas).
      ...(row.app_ids !== null ? { ownedAppIds: row.app_ids ? row.app_ids.split(',') : [] } : {}),
    };
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
   * An admin gives REVIEWER or ADMIN to an account (a no-op when it has it). Roles are read on every
   * request, so the user's sessions act with it from their next request.
   */
  async grantRole(userId: string, rawRole: string): Promise<Account> {
    const role = grantableRole(rawRole);
    return this.db.transaction(async (manager) => {
      const account = await manager.getRepository(Account).findOne({ where: { id: userId }, lock: { mode: 'pessimistic_write' } });
      if (!account) throw notFound('User');
      if (!account.grantedRoles.includes(role)) {
        account.grantedRoles = [...account.grantedRoles, role];
        await manager.update(Account, { id: userId }, { grantedRoles: account.grantedRoles });
      }
      return account;
    });
  }

  /**
   * An admin takes back a granted role. A role that would stay anyway is refused (CONFLICT) rather than
   * silently kept: one from PLATFORM_*_EMAILS, REVIEWER of an admin (admins review), and an admin's own
   * ADMIN (so the platform cannot lose its last admin by a slip). Not holding the role is a no-op.
   */
  async revokeRole(actor: Principal, userId: string, rawRole: string): Promise<Account> {
    const role = grantableRole(rawRole);
    return this.db.transaction(async (manager) => {
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
        // HTTP requests read roles afresh, but open WebSockets keep those they connected with: close them
        // on every process once this commits.
        await this.pubSub.publishIn(manager, Topic.ROLES_REVOKED, userId, {});
      }
      return account;
    });
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
    await this.db.transaction(async (manager) => {
      await manager.getRepository(ApiToken).update({ id, revokedAt: IsNull() }, { revokedAt: new Date() });
      await this.pubSub.publishIn(manager, Topic.CREDENTIAL_REVOKED, id, {});
    });
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
