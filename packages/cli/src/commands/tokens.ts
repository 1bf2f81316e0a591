import { PlazaApi, requireSignInToken } from '../api.js';
import { loadSettings } from '../config.js';
import { CliError } from '../errors.js';
import { colours, printJson, printTable } from '../output.js';
import { parsePositiveInt } from '../parse.js';
import { tokensPageUrl } from './account.js';

const TOKEN_FIELDS = 'id name tokenPrefix scopes createdAt expiresAt lastUsedAt revokedAt';
const CREATE = `mutation($input: CreateApiTokenInput!) { createApiToken(input: $input) { token apiToken { ${TOKEN_FIELDS} } } }`;
const LIST = `query($first: Int!, $after: String) { myApiTokens(first: $first, after: $after) { edges { node { ${TOKEN_FIELDS} } } pageInfo { hasNextPage endCursor } } }`;
const REVOKE = `mutation($id: ID!) { revokeApiToken(id: $id) }`;
/** The scopes a token needs for every plaza command that takes one (all of them, today). */
export const CLI_SCOPES = ['deliveries:read', 'deliveries:write', 'apps:read'] as const;
const MAX_EXPIRES_IN_DAYS = 365;

interface ApiToken {
  id: string;
  name: string;
  tokenPrefix: string;
  scopes: string[];
  createdAt: string;
  expiresAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

/** Managing API tokens is for people signed in: Plaza refuses API tokens there. */
async function signedInApi(): Promise<PlazaApi> {
  const settings = await loadSettings();
  requireSignInToken(settings, 'plaza tokens', `manage them at ${tokensPageUrl(settings.url)}`);
  return new PlazaApi(settings);
}

export interface CreateTokenOptions {
  name: string;
  scope: string[];
  expiresInDays?: string;
  json?: boolean;
}

/** A new API token; its value is printed once, alone on stdout, so `TOKEN=$(plaza tokens create --name ci)` works. */
export async function createToken(options: CreateTokenOptions): Promise<void> {
  const scopes = options.scope.length > 0 ? options.scope : [...CLI_SCOPES];
  const expiresInDays = options.expiresInDays === undefined ? undefined : parsePositiveInt('--expires-in-days', options.expiresInDays);
  if (expiresInDays !== undefined && expiresInDays > MAX_EXPIRES_IN_DAYS)
    throw new CliError(`--expires-in-days must be from 1 to ${MAX_EXPIRES_IN_DAYS}, not "${options.expiresInDays}"`);
  const api = await signedInApi();
  const { createApiToken } = await api.request<{ createApiToken: { token: string; apiToken: ApiToken } }>(CREATE, {
    input: { name: options.name, scopes, ...(expiresInDays === undefined ? {} : { expiresInDays }) },
  });
  if (options.json) return printJson({ ...createApiToken.apiToken, token: createApiToken.token });
  process.stdout.write(`${createApiToken.token}\n`);
  const created = createApiToken.apiToken;
  process.stderr.write(
    colours.dim(
      `Token ${created.id} (${created.name}): ${created.scopes.join(', ')}, expires ${created.expiresAt}. Shown this once: keep it now (plaza login reads it from stdin)\n`,
    ),
  );
}

export async function listTokens(options: { limit?: string; json?: boolean }): Promise<void> {
  const limit = options.limit === undefined ? 500 : parsePositiveInt('--limit', options.limit);
  const api = await signedInApi();
  const found: ApiToken[] = [];
  let after: string | null = null;
  while (found.length < limit) {
    const page: { myApiTokens: { edges: { node: ApiToken }[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } } } = await api.request(LIST, {
      first: Math.min(100, limit - found.length),
      after,
    });
    const nodes = page.myApiTokens.edges.map((e) => e.node);
    if (options.json) nodes.forEach(printJson);
    found.push(...nodes);
    if (!page.myApiTokens.pageInfo.hasNextPage || !page.myApiTokens.pageInfo.endCursor) break;
    after = page.myApiTokens.pageInfo.endCursor;
  }
  if (options.json) return;
  if (found.length === 0) return void process.stdout.write('You have no API tokens: plaza tokens create --name <what it is for>\n');
  const day = (time: string | null) => (time ? time.slice(0, 10) : '-');
  printTable(
    ['ID', 'NAME', 'PREFIX', 'SCOPES', 'CREATED', 'EXPIRES', 'LAST USED', 'STATE'],
    found.map((t) => [
      t.id,
      t.name,
      t.tokenPrefix,
      t.scopes.join(','),
      day(t.createdAt),
      day(t.expiresAt),
      day(t.lastUsedAt),
      t.revokedAt ? 'revoked' : Date.parse(t.expiresAt) <= Date.now() ? 'expired' : 'active',
    ]),
    (column, cell, padded) => (column === 7 && cell !== 'active' ? colours.dim(padded) : padded),
  );
}

export async function revokeToken(id: string, options: { json?: boolean }): Promise<void> {
  if (!/^tok_[0-9A-Z]{26}$/.test(id)) throw new CliError(`<id> must be a token id such as tok_01J..., as plaza tokens list shows, not "${id}"`);
  const api = await signedInApi();
  await api.request<{ revokeApiToken: boolean }>(REVOKE, { id });
  if (options.json) return printJson({ id, revoked: true });
  process.stdout.write(`Revoked ${id}: it is refused from now on, and its open live connections are closed\n`);
}
