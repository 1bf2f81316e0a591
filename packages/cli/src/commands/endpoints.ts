import { PlazaApi, requireOwnApp, requireSignInToken } from '../api.js';
import { loadSettings } from '../config.js';
import { CliError } from '../errors.js';
import { colours, paintStatus, printJson, printTable } from '../output.js';
import { parseEvent, parsePositiveInt } from '../parse.js';
import { eventName } from './apps.js';

const FIELDS = 'id appId url description events state rateLimitPerSecond createdAt';
const LIST = `query($id: ID!) { app(id: $id) { id webhookEndpoints { ${FIELDS} } } }`;
const CREATE = `mutation($appId: ID!, $input: WebhookEndpointInput!) { createWebhookEndpoint(appId: $appId, input: $input) { ${FIELDS} } }`;
const PAUSE = `mutation($id: ID!) { pauseWebhookEndpoint(id: $id) { ${FIELDS} } }`;
const RESUME = `mutation($id: ID!) { resumeWebhookEndpoint(id: $id) { ${FIELDS} } }`;
const DELETE = `mutation($id: ID!) { deleteWebhookEndpoint(id: $id) }`;
/** The contract's WebhookEndpointInput.rateLimitPerSecond range. */
const MAX_RATE = 1000;

interface Endpoint {
  id: string;
  appId: string;
  url: string;
  description: string | null;
  events: string[];
  state: string;
  rateLimitPerSecond: number | null;
  createdAt: string;
}

/** An endpoint id as Plaza writes it, checked here so a typo costs no request. */
export function parseEndpointId(flag: string, raw: string): string {
  if (!/^ep_[0-9A-Z]{26}$/.test(raw)) throw new CliError(`${flag} must be an endpoint id such as ep_01J..., as plaza endpoints --app <id> lists them, not "${raw}"`);
  return raw;
}

const pace = (e: Endpoint) => (e.rateLimitPerSecond === null ? 'unpaced' : `${e.rateLimitPerSecond}/s`);

export async function listEndpoints(options: { app?: string; json?: boolean }): Promise<void> {
  if (!options.app) throw new CliError('plaza endpoints needs --app <id> (plaza apps lists yours)');
  const api = new PlazaApi(await loadSettings());
  await requireOwnApp(api, options.app);
  const { app } = await api.request<{ app: { webhookEndpoints: Endpoint[] } | null }>(LIST, { id: options.app });
  const endpoints = app?.webhookEndpoints ?? [];
  if (options.json) return endpoints.forEach(printJson);
  if (endpoints.length === 0) return void process.stdout.write(`${options.app} has no webhook endpoints: plaza endpoints add --app ${options.app} --url <url>\n`);
  printTable(
    ['ID', 'STATE', 'URL', 'EVENTS', 'PACE', 'DESCRIPTION'],
    endpoints.map((e) => [e.id, e.state, e.url, e.events.map(eventName).join(','), pace(e), e.description ?? '']),
    (column, cell, padded) => (column === 1 ? paintStatus(cell, padded) : padded),
  );
}

export interface AddEndpointOptions {
  app: string;
  url: string;
  description?: string;
  events?: string;
  rate?: string;
  json?: boolean;
}

export async function addEndpoint(options: AddEndpointOptions): Promise<void> {
  const events = options.events === undefined ? undefined : options.events.split(',').map((e) => parseEvent('--events', e.trim()));
  const rateLimitPerSecond = options.rate === undefined ? undefined : parsePositiveInt('--rate', options.rate);
  if (rateLimitPerSecond !== undefined && rateLimitPerSecond > MAX_RATE) throw new CliError(`--rate must be from 1 to ${MAX_RATE} requests a second, not "${options.rate}"`);
  const settings = await loadSettings();
  // Plaza refuses API tokens for creating and editing endpoints (FORBIDDEN): said first, in one line.
  requireSignInToken(settings, 'plaza endpoints add', `add it in the portal (${settings.url}/developer/apps/${options.app})`);
  const api = new PlazaApi(settings);
  const input = {
    url: options.url,
    ...(options.description === undefined ? {} : { description: options.description }),
    ...(events ? { events } : {}),
    ...(rateLimitPerSecond ? { rateLimitPerSecond } : {}),
  };
  const { createWebhookEndpoint: endpoint } = await api.request<{ createWebhookEndpoint: Endpoint }>(CREATE, { appId: options.app, input });
  if (options.json) return printJson(endpoint);
  process.stdout.write(`${endpoint.id}\n`);
  process.stderr.write(
    colours.dim(
      `Added ${endpoint.id} to ${endpoint.appId}: ${endpoint.url}, ${endpoint.events.map(eventName).join(',')}, ${pace(endpoint)}; new events are sent to it from now on\n`,
    ),
  );
}

export async function pauseEndpoint(id: string, options: { json?: boolean }): Promise<void> {
  const api = new PlazaApi(await loadSettings());
  const { pauseWebhookEndpoint: endpoint } = await api.request<{ pauseWebhookEndpoint: Endpoint }>(PAUSE, { id: parseEndpointId('<endpointId>', id) });
  if (options.json) return printJson(endpoint);
  process.stdout.write(`Paused ${endpoint.id} (${endpoint.url}): its events are recorded and held, nothing is sent until plaza endpoints resume ${endpoint.id}\n`);
}

export async function resumeEndpoint(id: string, options: { json?: boolean }): Promise<void> {
  const api = new PlazaApi(await loadSettings());
  const { resumeWebhookEndpoint: endpoint } = await api.request<{ resumeWebhookEndpoint: Endpoint }>(RESUME, { id: parseEndpointId('<endpointId>', id) });
  if (options.json) return printJson(endpoint);
  process.stdout.write(`${endpoint.id} (${endpoint.url}) is ${paintStatus(endpoint.state)}: new events are sent to it\n`);
  process.stderr.write(colours.dim(`Events held meanwhile are sent by plaza recover --app ${endpoint.appId} --endpoint ${endpoint.id} --since <when it was paused>\n`));
}

/** What removing an endpoint does to its deliveries (deleteWebhookEndpoint's contract). */
const REMOVAL_EFFECT = 'its deliveries not yet settled give up (FAILED) and are never sent; the log keeps every delivery it had';

export async function removeEndpoint(id: string, options: { yes?: boolean; json?: boolean }): Promise<void> {
  parseEndpointId('<endpointId>', id);
  const api = new PlazaApi(await loadSettings());
  if (!options.yes) {
    // A script (no terminal) must say --yes: nothing is removed on a guess.
    if (!process.stdin.isTTY || !process.stderr.isTTY)
      throw new CliError(`plaza endpoints remove asks before removing ${id}: pass --yes when not on a terminal (${REMOVAL_EFFECT})`);
    const { confirm } = await import('@inquirer/prompts');
    const sure = await confirm({ message: `Remove ${id}? ${REMOVAL_EFFECT[0]!.toUpperCase()}${REMOVAL_EFFECT.slice(1)}.`, default: false }, { output: process.stderr });
    if (!sure) return void process.stderr.write('Nothing removed.\n');
  }
  await api.request<{ deleteWebhookEndpoint: boolean }>(DELETE, { id });
  if (options.json) return printJson({ id, removed: true });
  process.stdout.write(`Removed ${id}: ${REMOVAL_EFFECT}\n`);
}
