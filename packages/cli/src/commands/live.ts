import type { Client } from 'graphql-ws';
import { describeError, PlazaApi, requireOwnApp } from '../api.js';
import { loadSettings } from '../config.js';
import { CliError } from '../errors.js';
import { colours, paintStatus, printJson, progress } from '../output.js';
import { parseTime } from '../parse.js';
import { lastAttempt, type Delivery } from './deliveries.js';

const LIVE_FIELDS = `id appId eventName status attemptCount purchaseId heldReason createdAt updatedAt nextAttemptAt
  attempts { number trigger outcome statusCode error durationMs finished startedAt }`;
const UPDATES = `subscription($appId: ID) { webhookDeliveryUpdated(appId: $appId) { ${LIVE_FIELDS} } }`;

/** Runs until Ctrl-C (or SIGTERM), then closes the connection and resolves so the process exits 0. */
function untilInterrupted(client: Client, stop: () => void): Promise<void> {
  return new Promise((resolve) => {
    const end = () => {
      stop();
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
      error: (error) => {
        const code = (error as { code?: number }).code;
        onError(
          new CliError(
            code === 4403 || code === 4401 ? 'Your token was refused (UNAUTHENTICATED): run plaza login' : `The live connection failed: ${(error as Error).message ?? code}`,
          ),
        );
      },
      complete: () => undefined,
    },
  );
}

export async function tail(options: { app: string; json?: boolean }): Promise<void> {
  const api = new PlazaApi(await loadSettings());
  await requireOwnApp(api, options.app);
  let stopping = false;
  let failure: CliError | undefined;
  let wake: () => void = () => undefined;
  const client = api.websocket({
    onConnected: () => process.stderr.write(colours.dim(`Watching the deliveries of ${options.app} live (Ctrl-C to stop)\n`)),
    onClosed: () => void (stopping || process.stderr.write(colours.yellow('Connection lost; reconnecting (updates made meanwhile are in plaza deliveries)\n'))),
  });
  const stop = subscribeUpdates(
    client,
    options.app,
    (d) => {
      if (options.json) return printJson(d);
      const time = new Date(d.updatedAt).toLocaleTimeString();
      process.stdout.write(
        `${colours.dim(time)}  ${d.id}  ${d.eventName.padEnd(15)}  ${paintStatus(d.status, d.status.padEnd(9))}  attempt ${d.attemptCount}  ${lastAttempt(d)}\n`,
      );
    },
    (error) => {
      failure = error;
      wake();
    },
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
  if (options.json) return void (spinner.stop(), printJson(delivery));
  spinner.success(`Sent ${delivery.id} again (attempt ${delivery.attemptCount}): ${delivery.status}, ${lastAttempt(delivery)}`);
}

interface Recovery {
  appId: string;
  since: string;
  deliveriesQueued: number;
  /** FAILED since then but not queued: their bodies passed the server's WEBHOOK_BODY_RETENTION. */
  deliveriesSkipped: number;
}

export async function recover(options: { app: string; since: string; wait: boolean; json?: boolean }): Promise<void> {
  const since = parseTime('--since', options.since);
  if (since.getTime() > Date.now()) throw new CliError(`--since must not be in the future (${since.toISOString()})`);
  const api = new PlazaApi(await loadSettings());
  await requireOwnApp(api, options.app);
  // Subscribe before asking, so no attempt of the recovery can finish unseen.
  const finished = new Map<string, Delivery>();
  let connected: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (connected = resolve));
  let check: () => void = () => undefined;
  let failure: CliError | undefined;
  const client = options.wait ? api.websocket({ onConnected: () => connected() }) : undefined;
  const stop = client
    ? subscribeUpdates(
        client,
        options.app,
        (d) => {
          const last = d.attempts[d.attempts.length - 1];
          if (last?.trigger === 'MANUAL' && last.finished) finished.set(d.id, d);
          check();
        },
        (error) => ((failure = error), check()),
      )
    : () => undefined;
  const spinner = progress(`Queueing failed deliveries of ${options.app} since ${since.toISOString()}`, options.json);
  try {
    if (client) await ready;
    const { recoverWebhookDeliveries: recovery } = await api.request<{ recoverWebhookDeliveries: Recovery }>(
      `mutation($appId: ID!, $since: DateTime!) { recoverWebhookDeliveries(appId: $appId, since: $since) { appId since deliveriesQueued deliveriesSkipped } }`,
      { appId: options.app, since: since.toISOString() },
    );
    if (options.json) printJson(recovery);
    else if (recovery.deliveriesSkipped > 0)
      process.stderr.write(colours.yellow(`${recovery.deliveriesSkipped} failed deliveries cannot be sent again: their bodies are no longer kept (WEBHOOK_BODY_RETENTION)\n`));
    if (!client || recovery.deliveriesQueued === 0) {
      spinner.success(`${recovery.deliveriesQueued} failed deliveries queued to send again${client ? '' : ' (plaza tail shows them go)'}`);
      return;
    }
    const total = recovery.deliveriesQueued;
    const summary = () => {
      const ok = [...finished.values()].filter((d) => d.status === 'SUCCEEDED').length;
      return `${finished.size}/${total} sent: ${ok} succeeded, ${finished.size - ok} failed`;
    };
    await new Promise<void>((resolve) => {
      check = () => {
        spinner.update(`Recovering ${options.app}: ${summary()}`);
        if (finished.size >= total || failure) resolve();
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
    spinner.success(`Recovered ${options.app}: ${summary()}`);
    if (options.json) [...finished.values()].forEach(printJson);
  } catch (error) {
    spinner.stop();
    throw error;
  } finally {
    stop();
    await client?.dispose();
  }
}
