import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { dirname, join } from 'node:path';
import { describeError, liveConnectionError, PlazaApi, REFUSED, requireOwnApp } from '../api.js';
import { loadSettings } from '../config.js';
import { CliError, DELIVERY_FAILED_EXIT_CODE } from '../errors.js';
import { colours, printJson } from '../output.js';
import { parseEvent, parseTime } from '../parse.js';

/** How far back a (re)started listener catches up at most, whatever its saved position says. */
export const CATCH_UP_LIMIT_MS = 24 * 3_600_000;
const CATCH_UP_MAX_DELIVERIES = 500;
/** One local request's limit: a breakpoint may hold it, but not forever. */
const FORWARD_TIMEOUT_MS = 30_000;
const REMEMBERED_IDS = 500;

interface ForwardRequest {
  deliveryId: string;
  appId: string;
  eventName: string;
  test: boolean;
  body: string;
  headers: { name: string; value: string }[];
  createdAt: string;
}

const REQUEST_FIELDS = 'deliveryId appId eventName test body headers { name value } createdAt';
const FORWARD_REQUEST = `query($id: ID!) { webhookForwardRequest(deliveryId: $id) { ${REQUEST_FIELDS} } }`;
const REPORT = `mutation($id: ID!, $statusCode: Int, $durationMs: Int!, $error: String) { reportLocalForward(deliveryId: $id, statusCode: $statusCode, durationMs: $durationMs, error: $error) { id } }`;
const SINCE = `query($first: Int!, $after: String, $filter: WebhookDeliveryFilter) {
  webhookDeliveries(first: $first, after: $after, filter: $filter) { edges { node { id createdAt eventName } } pageInfo { hasNextPage endCursor } } }`;

/** Where a listener of this app got to, so a restarted one forwards what it missed (per Plaza URL and app). */
interface Position {
  lastCreatedAt: string;
  ids: string[];
}

function positionPath(configPath: string, url: string, appId: string): string {
  return join(dirname(configPath), 'listen', `${encodeURIComponent(url)}-${appId}.json`);
}

async function readPosition(path: string): Promise<Position | null> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as Position;
  } catch {
    return null;
  }
}

/**
 * POSTs with exactly Plaza's headers (plus host, content-length and connection, which any HTTP client
 * sends); fetch would add accept, accept-language, sec-fetch-mode and accept-encoding of its own.
 */
function post(target: URL, headers: { name: string; value: string }[], body: string): Promise<number> {
  const bytes = Buffer.from(body, 'utf8');
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(
      target,
      { method: 'POST', headers: { ...Object.fromEntries(headers.map((h) => [h.name, h.value])), 'content-length': String(bytes.length) }, timeout: FORWARD_TIMEOUT_MS },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(Object.assign(new Error(`no answer within ${FORWARD_TIMEOUT_MS / 1000} s`), { code: `no answer within ${FORWARD_TIMEOUT_MS / 1000} s` })));
    req.on('error', reject);
    req.end(bytes);
  });
}

export interface ListenOptions {
  app: string;
  forwardTo: string;
  events?: string;
  since?: string;
  json?: boolean;
}

export async function listen(options: ListenOptions): Promise<void> {
  let target: URL;
  try {
    target = new URL(options.forwardTo);
  } catch {
    throw new CliError(`--forward-to must be a URL such as http://localhost:3000/webhooks/plaza, not "${options.forwardTo}"`);
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') throw new CliError(`--forward-to must start with http:// or https://, not "${options.forwardTo}"`);
  const events = options.events ? new Set(options.events.split(',').map((e) => parseEvent('--events', e.trim()).toLowerCase().replace('_', '.'))) : null;
  const settings = await loadSettings();
  const api = new PlazaApi(settings);
  const app = await requireOwnApp(api, options.app);

  const statePath = positionPath(settings.configPath, settings.url, app.id);
  const saved = options.since ? null : await readPosition(statePath);
  const now = Date.now();
  const floor = now - CATCH_UP_LIMIT_MS;
  // From --since, else from where the last listener stopped (at most 24 h back), else from now.
  let cursor = options.since ? parseTime('--since', options.since).getTime() : saved ? Math.max(floor, Date.parse(saved.lastCreatedAt)) : now;
  const startedFrom = cursor;
  const seen = new Set<string>(saved?.ids ?? []);
  let recent: string[] = [...(saved?.ids ?? [])];
  const log = (line: string) => void (options.json ? undefined : process.stdout.write(`${line}\n`));
  const info = (line: string) => void process.stderr.write(`${colours.dim(line)}\n`);

  let queue: Promise<void> = Promise.resolve();
  let stopping = false;

  const save = async (createdAt: string, id: string) => {
    if (Date.parse(createdAt) < cursor) return;
    if (Date.parse(createdAt) > cursor) recent = [];
    cursor = Date.parse(createdAt);
    recent = [...recent, id].slice(-REMEMBERED_IDS);
    await mkdir(dirname(statePath), { recursive: true, mode: 0o700 });
    await writeFile(statePath, JSON.stringify({ lastCreatedAt: new Date(cursor).toISOString(), ids: recent } satisfies Position), { mode: 0o600 });
  };

  /** Reported after the position is saved, so a listener killed in between forwards it again (at least once) rather than never. */
  const report = async (answer: { deliveryId: string; statusCode: number | null; durationMs: number; error: string | null } | null) => {
    if (!answer) return;
    try {
      await api.request(REPORT, { id: answer.deliveryId, statusCode: answer.statusCode, durationMs: answer.durationMs, error: answer.error });
    } catch (err) {
      info(`Could not report ${answer.deliveryId} back to Plaza: ${(err as Error).message}`);
    }
  };

  const forward = async (request: ForwardRequest) => {
    if (events && !events.has(request.eventName)) return null;
    const started = Date.now();
    let statusCode: number | null = null;
    let error: string | null = null;
    try {
      statusCode = await post(target, request.headers, request.body);
    } catch (err) {
      error = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    }
    const durationMs = Date.now() - started;
    const ok = statusCode !== null && statusCode >= 200 && statusCode < 300;
    const outcome = statusCode !== null ? `${statusCode}` : `failed: ${error}`;
    if (options.json)
      printJson({ deliveryId: request.deliveryId, eventName: request.eventName, test: request.test, statusCode, durationMs, error, forwardedTo: target.toString() });
    log(
      `${colours.dim(new Date().toLocaleTimeString())}  ${request.eventName.padEnd(15)}  ${request.deliveryId}  ${(ok ? colours.green : colours.red)(`--> ${outcome}`)} ${colours.dim(`${durationMs}ms`)}${request.test ? colours.yellow('  [test]') : ''}`,
    );
    return { deliveryId: request.deliveryId, statusCode, durationMs, error: error?.slice(0, 500) ?? null };
  };

  /** A real delivery, once: its exact request is fetched (signed now) and forwarded in arrival order. */
  const deliver = (id: string, createdAt: string, eventName: string) => {
    // --events: the others are neither fetched nor counted.
    if (seen.has(id) || Date.parse(createdAt) < startedFrom || (events && !events.has(eventName))) return;
    seen.add(id);
    queue = queue.then(async () => {
      if (stopping) return;
      try {
        const { webhookForwardRequest } = await api.request<{ webhookForwardRequest: ForwardRequest }>(FORWARD_REQUEST, { id });
        const answer = await forward(webhookForwardRequest);
        await save(createdAt, id);
        await report(answer);
      } catch (err) {
        info(`Could not forward ${id}: ${(err as Error).message}`);
      }
    });
  };

  /** Deliveries made since the cursor (while this listener was down or reconnecting), oldest first. */
  const catchUp = async () => {
    const found: { id: string; createdAt: string; eventName: string }[] = [];
    let after: string | null = null;
    while (found.length < CATCH_UP_MAX_DELIVERIES) {
      const page: { webhookDeliveries: { edges: { node: { id: string; createdAt: string; eventName: string } }[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } } } =
        await api.request(SINCE, {
          first: 100,
          after,
          filter: { appId: app.id, since: new Date(cursor).toISOString() },
        });
      found.push(...page.webhookDeliveries.edges.map((e) => e.node));
      if (!page.webhookDeliveries.pageInfo.hasNextPage || !page.webhookDeliveries.pageInfo.endCursor) break;
      after = page.webhookDeliveries.pageInfo.endCursor;
    }
    // Counted as it will forward them: with --events, only those events.
    const missed = found.filter((d) => !seen.has(d.id) && (!events || events.has(d.eventName))).reverse();
    if (missed.length > 0) info(`Catching up: ${missed.length} deliveries made since ${new Date(cursor).toISOString()}${events ? ` (${[...events].join(', ')})` : ''}`);
    for (const d of missed) deliver(d.id, d.createdAt, d.eventName);
  };

  let failure: CliError | undefined;
  let finish: () => void = () => undefined;
  const done = new Promise<void>((resolve) => (finish = resolve));
  let connections = 0;
  const fail = (error: CliError) => {
    failure ??= error;
    finish();
  };
  const client = await api.websocket({
    onConnected: () => {
      connections += 1;
      if (connections === 1) {
        info(`Forwarding ${app.name} (${app.id}) deliveries to ${target.toString()} (Ctrl-C to stop)`);
        // Real events are recorded as deliveries only for an app with a webhook URL: say so before anyone waits for one.
        if (!app.webhookUrl)
          process.stderr.write(
            `${colours.yellow(`${app.id} has no webhook URL: real events will not come until one is set (in the portal); test events from plaza trigger still do`)}\n`,
          );
        if (startedFrom < now) info(`Catching up from ${new Date(startedFrom).toISOString()} (at most 24 h back)`);
      } else info('Reconnected; catching up');
      // Every (re)connection asks for what was made since the last delivery forwarded, so none is lost in a gap.
      catchUp().catch((err) => {
        // A refused token closes the live connection too, which says so once (onFailed).
        if (!failure && (err as Error).message !== REFUSED) info(`Catching up failed: ${(err as Error).message}`);
      });
    },
    onClosed: () => void (stopping || failure || info('Connection lost; reconnecting')),
    onFailed: fail,
  });
  const stops = [
    client.subscribe<{ webhookDeliveryUpdated: { id: string; createdAt: string; eventName: string } }>(
      { query: `subscription($appId: ID) { webhookDeliveryUpdated(appId: $appId) { id createdAt eventName } }`, variables: { appId: app.id } },
      {
        next: (r) =>
          r.errors?.length
            ? ((failure = new CliError(describeError(r.errors[0]!))), finish())
            : r.data && deliver(r.data.webhookDeliveryUpdated.id, r.data.webhookDeliveryUpdated.createdAt, r.data.webhookDeliveryUpdated.eventName),
        error: (error) => fail(liveConnectionError(error)),
        complete: () => undefined,
      },
    ),
    client.subscribe<{ webhookTestEventTriggered: ForwardRequest }>(
      { query: `subscription($appId: ID!) { webhookTestEventTriggered(appId: $appId) { ${REQUEST_FIELDS} } }`, variables: { appId: app.id } },
      {
        // Triggered events exist only for listeners that are connected: they are forwarded, never caught up.
        // The queue never rejects: forward() and report() turn every failure into a line on the terminal.
        next: (r) =>
          r.errors?.length
            ? ((failure = new CliError(describeError(r.errors[0]!))), finish())
            : r.data && void (queue = queue.then(async () => report(await forward(r.data!.webhookTestEventTriggered)))),
        error: (error) => fail(liveConnectionError(error)),
        complete: () => undefined,
      },
    ),
  ];
  process.once('SIGINT', finish);
  process.once('SIGTERM', finish);
  await done;
  stopping = true;
  stops.forEach((stop) => stop());
  await client.dispose();
  if (failure) throw failure;
  info('Stopped.');
}

export async function trigger(event: string, options: { app: string; json?: boolean }): Promise<void> {
  const type = parseEvent('<event>', event);
  const api = new PlazaApi(await loadSettings());
  await requireOwnApp(api, options.app);
  const { triggerWebhookEvent: triggered } = await api.request<{ triggerWebhookEvent: ForwardRequest & { recipients: number | null } }>(
    `mutation($appId: ID!, $event: WebhookEventType!) { triggerWebhookEvent(appId: $appId, event: $event) { ${REQUEST_FIELDS} recipients } }`,
    { appId: options.app, event: type },
  );
  // A triggered event exists only for the listeners connected when it is sent: with none, it went nowhere.
  const nobody = triggered.recipients === 0;
  if (nobody) process.exitCode = DELIVERY_FAILED_EXIT_CODE;
  if (options.json) printJson(triggered);
  else if (!nobody) {
    const sessions = triggered.recipients === 1 ? '1 plaza listen session' : `${triggered.recipients ?? 'its'} plaza listen sessions`;
    process.stdout.write(`Triggered a test ${triggered.eventName} (${triggered.deliveryId}) for ${options.app}: sent to ${sessions}, never to its webhook URL\n`);
  }
  if (nobody) {
    process.stderr.write(
      `Nobody received the test ${triggered.eventName} (${triggered.deliveryId}): no plaza listen session of ${options.app} is running. Start one first: plaza listen --app ${options.app} --forward-to <url>\n`,
    );
  }
}
