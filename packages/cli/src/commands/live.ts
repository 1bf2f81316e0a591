import type { Client } from 'graphql-ws';
import { describeError, liveConnectionError, PlazaApi, requireOwnApp } from '../api.js';
import { loadSettings } from '../config.js';
import { CliError, DELIVERY_FAILED_EXIT_CODE } from '../errors.js';
import { colours, paintStatus, printJson, progress } from '../output.js';
import { parseTime } from '../parse.js';
import { lastAttempt, type Delivery } from './deliveries.js';
import { parseEndpointId } from './endpoints.js';
import { RecoveryOutcomes, type Attempt } from './recovery-outcomes.js';

const LIVE_FIELDS = `id appId endpointId eventName status attemptCount purchaseId heldReason createdAt updatedAt nextAttemptAt
  attempts { number trigger outcome statusCode error durationMs finished startedAt }`;
const UPDATES = `subscription($appId: ID) { webhookDeliveryUpdated(appId: $appId) { ${LIVE_FIELDS} } }`;

/** Runs until Ctrl-C (or SIGTERM), then closes the connection and resolves so the process exits 0. */
function untilInterrupted(client: Client, stop: () => void): Promise<void> {
  return new Promise((resolve) => {
    const end = () => {
      stop();
      // graphql-ws closes the socket at once; the process exits right after, so nothing waits for it.
      void client.dispose();
      process.stderr.write('\nStopped.\n');
      resolve();
    };
    process.once('SIGINT', end);
    process.once('SIGTERM', end);
  });
}

function subscribeUpdates(client: Client, appId: string, onUpdate: (d: Delivery) => void, onError: (e: CliError) => void): () => void {
  return client.subscribe<{ webhookDeliveryUpdated: Delivery }>(
    { query: UPDATES, variables: { appId } },
    {
      next: (result) => {
        if (result.errors?.length) onError(new CliError(describeError(result.errors[0]!)));
        else if (result.data) onUpdate(result.data.webhookDeliveryUpdated);
      },
      error: (error) => onError(liveConnectionError(error)),
      complete: () => undefined,
    },
  );
}

export async function tail(options: { app: string; endpoint?: string; json?: boolean }): Promise<void> {
  const endpointId = options.endpoint === undefined ? undefined : parseEndpointId('--endpoint', options.endpoint);
  const api = new PlazaApi(await loadSettings());
  await requireOwnApp(api, options.app);
  let stopping = false;
  let failure: CliError | undefined;
  let wake: () => void = () => undefined;
  const fail = (error: CliError) => {
    failure ??= error;
    wake();
  };
  const client = await api.websocket({
    onConnected: () => process.stderr.write(colours.dim(`Watching the deliveries of ${options.app}${endpointId ? ` to ${endpointId}` : ''} live (Ctrl-C to stop)\n`)),
    onClosed: () => void (stopping || failure || process.stderr.write(colours.yellow('Connection lost; reconnecting (updates made meanwhile are in plaza deliveries)\n'))),
    onFailed: fail,
  });
  const stop = subscribeUpdates(
    client,
    options.app,
    (d) => {
      // The subscription is per app; one endpoint's updates are picked here.
      if (endpointId && d.endpointId !== endpointId) return;
      if (options.json) return printJson(d);
      const time = new Date(d.updatedAt).toLocaleTimeString();
      process.stdout.write(
        `${colours.dim(time)}  ${d.id}  ${d.eventName.padEnd(15)}  ${paintStatus(d.status, d.status.padEnd(9))}  attempt ${d.attemptCount}  ${lastAttempt(d)}\n`,
      );
    },
    fail,
  );
  await Promise.race([untilInterrupted(client, () => ((stopping = true), stop())), new Promise<void>((resolve) => (wake = resolve))]);
  stopping = true;
  if (failure) {
    await client.dispose();
    throw failure;
  }
}

export async function redeliver(deliveryId: string, options: { json?: boolean }): Promise<void> {
  const api = new PlazaApi(await loadSettings());
  const spinner = progress(`Sending ${deliveryId} again`, options.json);
  let delivery: Delivery;
  try {
    ({ redeliverWebhook: delivery } = await api.request<{ redeliverWebhook: Delivery }>(`mutation($id: ID!) { redeliverWebhook(deliveryId: $id) { ${LIVE_FIELDS} } }`, {
      id: deliveryId,
    }));
  } catch (error) {
    spinner.stop();
    throw error;
  }
  // Ours is the newest MANUAL attempt: the answer is read once it is recorded, and a scheduled one may follow it.
  const ours = [...delivery.attempts].reverse().find((a) => a.trigger === 'MANUAL');
  const sent = ours ? attemptOutcome(ours) : lastAttempt(delivery);
  if (ours?.outcome !== 'SUCCEEDED') process.exitCode = DELIVERY_FAILED_EXIT_CODE;
  spinner.stop();
  if (options.json) return printJson(delivery);
  // The outcome is the command's result, so it goes to stdout (a script reads it there), painted only on a terminal.
  process.stdout.write(`Sent ${delivery.id} again (attempt ${ours?.number ?? delivery.attemptCount}): ${paintStatus(ours?.outcome ?? delivery.status)}, ${sent}\n`);
}

/** What one attempt did, in a few characters: "200 31ms", "timeout". */
function attemptOutcome(attempt: Attempt): string {
  if (!attempt.finished) return 'in flight';
  return attempt.statusCode !== null ? `${attempt.statusCode} ${attempt.durationMs}ms` : (attempt.error ?? attempt.outcome).slice(0, 40);
}

interface Recovery {
  appId: string;
  since: string;
  deliveriesQueued: number;
  /** FAILED since then but not queued: their bodies passed the server's WEBHOOK_BODY_RETENTION. */
  deliveriesSkipped: number;
}

const FAILED_SINCE = `query($first: Int!, $after: String, $filter: WebhookDeliveryFilter) {
  webhookDeliveries(first: $first, after: $after, filter: $filter) { edges { node { id attemptCount payloadKept } } pageInfo { hasNextPage endCursor } }
}`;
/** Deliveries re-read at once when live updates are quiet, and how quiet (ms) before they are. */
const RE_READ_BATCH = 10;
const QUIET_MS = 2000;

/** The attempt count of each FAILED delivery of the app since then that recovery can send, before it is asked to. */
async function countsBefore(api: PlazaApi, appId: string, since: Date, endpointId: string | undefined): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  let after: string | null = null;
  for (;;) {
    const page: {
      webhookDeliveries: { edges: { node: { id: string; attemptCount: number; payloadKept: boolean } }[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } };
    } = await api.request(FAILED_SINCE, { first: 100, after, filter: { appId, status: 'FAILED', since: since.toISOString(), ...(endpointId ? { endpointId } : {}) } });
    for (const { node } of page.webhookDeliveries.edges) if (node.payloadKept) counts.set(node.id, node.attemptCount);
    if (!page.webhookDeliveries.pageInfo.hasNextPage || !page.webhookDeliveries.pageInfo.endCursor) return counts;
    after = page.webhookDeliveries.pageInfo.endCursor;
  }
}

/** Deliveries `ids` as they are now (one snapshot each), in one request. */
async function readNow(api: PlazaApi, ids: string[]): Promise<Delivery[]> {
  const query = `query(${ids.map((_, i) => `$i${i}: ID!`).join(', ')}) { ${ids.map((_, i) => `d${i}: webhookDelivery(id: $i${i}) { ${LIVE_FIELDS} }`).join(' ')} }`;
  const data = await api.request<Record<string, Delivery | null>>(query, Object.fromEntries(ids.map((id, i) => [`i${i}`, id])));
  return Object.values(data).filter((d): d is Delivery => d !== null);
}

export async function recover(options: { app: string; since: string; endpoint?: string; wait: boolean; json?: boolean }): Promise<void> {
  const since = parseTime('--since', options.since);
  const endpointId = options.endpoint === undefined ? undefined : parseEndpointId('--endpoint', options.endpoint);
  if (since.getTime() > Date.now()) throw new CliError(`--since must not be in the future (${since.toISOString()})`);
  const api = new PlazaApi(await loadSettings());
  await requireOwnApp(api, options.app);
  // Subscribe before asking, so no attempt of the recovery can finish unseen.
  let connected: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (connected = resolve));
  let check: () => void = () => undefined;
  let failure: CliError | undefined;
  let watch: RecoveryOutcomes | undefined;
  const early: Delivery[] = [];
  let lastProgress = Date.now();
  const client = options.wait
    ? await api.websocket({
        onConnected: () => connected(),
        onFailed: (error) => {
          failure ??= error;
          connected();
          check();
        },
      })
    : undefined;
  const stop = client
    ? subscribeUpdates(
        client,
        options.app,
        (d) => {
          // The subscription is per app: another endpoint's deliveries are no part of a recovery of one.
          if (endpointId && d.endpointId !== endpointId) return;
          // Updates before the counts are read are kept for then: one may queue a delivery failed meanwhile.
          if (!watch) return void early.push(d);
          if (watch.see(d)) lastProgress = Date.now();
          check();
        },
        (error) => ((failure = error), check()),
      )
    : () => undefined;
  const spinner = progress(`Queueing failed deliveries of ${options.app} since ${since.toISOString()}`, options.json);
  let reReads: NodeJS.Timeout | undefined;
  try {
    if (client) await ready;
    // (Read through a cast: TypeScript does not see the handlers that set it, and would narrow it to undefined below.)
    if (failure as CliError | undefined) throw failure;
    // What each delivery had before this command, so the attempt it causes is told from older ones.
    const counts = client ? await countsBefore(api, options.app, since, endpointId) : new Map<string, number>();
    const { recoverWebhookDeliveries: recovery } = await api.request<{ recoverWebhookDeliveries: Recovery }>(
      `mutation($appId: ID!, $since: DateTime!, $endpointId: ID) { recoverWebhookDeliveries(appId: $appId, since: $since, endpointId: $endpointId) { appId since deliveriesQueued deliveriesSkipped } }`,
      { appId: options.app, since: since.toISOString(), endpointId },
    );
    if (options.json) printJson(recovery);
    else if (recovery.deliveriesSkipped > 0)
      process.stderr.write(colours.yellow(`${recovery.deliveriesSkipped} failed deliveries cannot be sent again: their bodies are no longer kept (WEBHOOK_BODY_RETENTION)\n`));
    if (!client || recovery.deliveriesQueued === 0) {
      spinner.stop();
      if (!options.json) process.stdout.write(`${recovery.deliveriesQueued} failed deliveries queued to send again${client ? '' : ' (plaza tail shows them go)'}\n`);
      return;
    }
    // Each delivery's outcome on stdout as it comes (the result), the running count on stderr (progress).
    const outcomes = (watch = new RecoveryOutcomes(counts, (o) => {
      if (options.json) return;
      spinner.stop();
      process.stdout.write(
        `${o.id}  ${o.eventName.padEnd(15)}  ${paintStatus(o.outcome, o.outcome.padEnd(9))}  attempt ${o.recoveryAttempt.number}  ${attemptOutcome(o.recoveryAttempt)}\n`,
      );
    }));
    early.splice(0).forEach((d) => outcomes.see(d));
    const total = recovery.deliveriesQueued;
    const summary = () => `${outcomes.outcomes.size}/${total} sent: ${outcomes.succeeded} succeeded, ${outcomes.failed} failed`;
    // Live updates are the fast path; when they go quiet (a reconnection, or an update published before the
    // subscription was live), the deliveries still waited for are read as they are.
    let reading = false;
    reReads = setInterval(() => {
      if (reading || Date.now() - lastProgress < QUIET_MS) return;
      reading = true;
      readNow(api, outcomes.pending().slice(0, RE_READ_BATCH))
        .then((now) => now.forEach((d) => outcomes.see(d) && (lastProgress = Date.now())))
        // A failed read is tried again when the updates are next quiet; the live updates go on meanwhile.
        .catch(() => undefined)
        .finally(() => ((reading = false), check()));
    }, QUIET_MS / 2);
    await new Promise<void>((resolve) => {
      check = () => {
        spinner.update(`Recovering ${options.app}: ${summary()}`);
        if (outcomes.outcomes.size >= total || failure) resolve();
      };
      process.once('SIGINT', () => ((failure = new CliError(`Stopped watching; the recovery goes on in Plaza (${summary()})`, 0)), resolve()));
      check();
    });
    if (failure?.exitCode === 0) {
      spinner.stop();
      process.stderr.write(`\n${failure.message}\n`);
      return;
    }
    if (failure) throw failure;
    if (options.json) outcomes.outcomes.forEach((outcome) => printJson(outcome));
    if (outcomes.failed === 0) return void spinner.success(`Recovered ${options.app}: ${summary()}`);
    spinner.error(`Recovered ${options.app}: ${summary()}`);
    process.exitCode = DELIVERY_FAILED_EXIT_CODE;
  } catch (error) {
    spinner.stop();
    throw error;
  } finally {
    clearInterval(reReads);
    stop();
    await client?.dispose();
  }
}
