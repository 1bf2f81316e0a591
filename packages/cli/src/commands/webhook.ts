import { PlazaApi } from '../api.js';
import { loadSettings } from '../config.js';
import { DELIVERY_FAILED_EXIT_CODE } from '../errors.js';
import { colours, paintStatus, printJson, progress } from '../output.js';
import { parseEvent } from '../parse.js';
import { lastAttempt, type Delivery } from './deliveries.js';
import { parseEndpointId } from './endpoints.js';

const FIELDS = `id appId endpointId eventName status attemptCount purchaseId heldReason createdAt updatedAt nextAttemptAt
  attempts { number trigger outcome statusCode error durationMs finished startedAt url }`;
const SEND_TEST = `mutation($appId: ID!, $event: WebhookEventType, $endpointId: ID) { sendTestWebhook(appId: $appId, event: $event, endpointId: $endpointId) { ${FIELDS} } }`;
/** A test event's deliveries, one per endpoint it went to: they share its purchase id. */
const OF_TEST = `query($filter: WebhookDeliveryFilter, $after: String) {
  webhookDeliveries(first: 50, after: $after, filter: $filter) { edges { node { ${FIELDS} } } pageInfo { hasNextPage endCursor } } }`;
const ENABLE = `mutation($appId: ID!) { enableWebhook(appId: $appId) { id name webhookUrl webhookState } }`;

/** How often a test event's deliveries are read while their attempts run, and for how long at most. */
const POLL_MS = 200;
/** Longer than any WEBHOOK_TIMEOUT worth having, plus time for the queue: past it the event is reported as not finished. */
const WAIT_LIMIT_MS = 120_000;

type TestDelivery = Delivery & { attempts: (Delivery['attempts'][number] & { url: string | null })[] };

const settled = (d: TestDelivery) => d.status === 'SUCCEEDED' || d.status === 'FAILED' || d.heldReason !== null;

/**
 * `plaza test <event> --app [--endpoint]`: sendTestWebhook, a signed sample event to the app's endpoints (or the
 * one named; each sent once, never retried), then waits for every one of those attempts. sendTestWebhook answers
 * the delivery to the first endpoint only; the others are recorded in the same transaction under the same
 * purchase id, so they are found through the log. Exit 0 when every receiver took it, 3 when one did not.
 */
export async function testEvent(event: string, options: { app: string; endpoint?: string; json?: boolean }): Promise<void> {
  const type = parseEvent('<event>', event);
  const endpointId = options.endpoint === undefined ? undefined : parseEndpointId('--endpoint', options.endpoint);
  const api = new PlazaApi(await loadSettings());
  const { sendTestWebhook: sent } = await api.request<{ sendTestWebhook: TestDelivery }>(SEND_TEST, { appId: options.app, event: type, endpointId });
  const spinner = progress(`Sending a test ${sent.eventName} (${sent.purchaseId}) to ${endpointId ?? `the endpoints of ${options.app}`}`, options.json);
  const filter = { appId: options.app, purchaseId: sent.purchaseId, ...(endpointId ? { endpointId } : {}) };
  const read = async () => {
    const found: TestDelivery[] = [];
    // Pages of 50: a page of 100 with attempts passes the API's query cost limit.
    for (let after: string | null = null; ;) {
      const { webhookDeliveries: page }: { webhookDeliveries: { edges: { node: TestDelivery }[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } } } =
        await api.request(OF_TEST, { filter, after });
      found.push(...page.edges.map((e) => e.node));
      if (!page.pageInfo.hasNextPage || !page.pageInfo.endCursor) break;
      after = page.pageInfo.endCursor;
    }
    // Oldest endpoint first, as Plaza numbers them (the first is the one sendTestWebhook answered).
    found.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return found.length > 0 ? found : [sent];
  };
  let deliveries = await read();
  const deadline = Date.now() + WAIT_LIMIT_MS;
  try {
    while (!deliveries.every(settled) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      deliveries = await read();
    }
  } finally {
    spinner.stop();
  }
  const succeeded = deliveries.every((d) => d.status === 'SUCCEEDED');
  if (!succeeded) process.exitCode = DELIVERY_FAILED_EXIT_CODE;
  if (options.json) return deliveries.forEach(printJson);
  for (const delivery of deliveries) {
    const attempt = delivery.attempts[delivery.attempts.length - 1];
    const where = attempt?.url ? ` to ${attempt.url}` : '';
    const why = delivery.heldReason ? `held: ${delivery.heldReason}` : settled(delivery) ? lastAttempt(delivery) : `not finished after ${WAIT_LIMIT_MS / 1000} s`;
    process.stdout.write(`Test ${delivery.eventName} ${delivery.id} (${delivery.endpointId})${where}: ${paintStatus(delivery.status)}, ${why}\n`);
  }
  if (!succeeded) process.stderr.write(colours.dim(`plaza deliveries --app ${sent.appId} --purchase ${sent.purchaseId} shows them; a test event is never retried\n`));
}

interface EnabledApp {
  id: string;
  name: string;
  webhookUrl: string | null;
  webhookState: string;
}

/** `plaza webhook enable --app`: sending resumes after an automatic disable; what failed meanwhile is for plaza recover. */
export async function enableWebhook(options: { app: string; json?: boolean }): Promise<void> {
  const api = new PlazaApi(await loadSettings());
  const { enableWebhook: app } = await api.request<{ enableWebhook: EnabledApp }>(ENABLE, { appId: options.app });
  if (options.json) return printJson(app);
  process.stdout.write(`Webhook of ${app.name} (${app.id}) is ${paintStatus(app.webhookState)}: new events are sent to ${app.webhookUrl ?? 'its webhook URL (none set)'}\n`);
  process.stderr.write(colours.dim(`Deliveries that failed while it was disabled are sent again by plaza recover --app ${app.id} --since <when it was disabled>\n`));
}
