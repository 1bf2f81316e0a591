import { PlazaApi } from '../api.js';
import { loadSettings } from '../config.js';
import { CliError, DELIVERY_FAILED_EXIT_CODE } from '../errors.js';
import { colours, paintStatus, printJson, progress } from '../output.js';
import { parseEvent } from '../parse.js';
import { lastAttempt, type Delivery } from './deliveries.js';

const FIELDS = `id appId eventName status attemptCount purchaseId heldReason createdAt updatedAt nextAttemptAt
  attempts { number trigger outcome statusCode error durationMs finished startedAt url }`;
const SEND_TEST = `mutation($appId: ID!, $event: WebhookEventType) { sendTestWebhook(appId: $appId, event: $event) { ${FIELDS} } }`;
const DELIVERY = `query($id: ID!) { webhookDelivery(id: $id) { ${FIELDS} } }`;
const ENABLE = `mutation($appId: ID!) { enableWebhook(appId: $appId) { id name webhookUrl webhookState } }`;

/** How often a test event's delivery is read while its one attempt runs, and for how long at most. */
const POLL_MS = 200;
/** Longer than any WEBHOOK_TIMEOUT worth having, plus time for the queue: past it the event is reported as not finished. */
const WAIT_LIMIT_MS = 120_000;

type TestDelivery = Delivery & { attempts: (Delivery['attempts'][number] & { url: string | null })[] };

const settled = (d: TestDelivery) => d.status === 'SUCCEEDED' || d.status === 'FAILED' || d.heldReason !== null;

/**
 * `plaza test <event> --app`: sendTestWebhook, a signed sample event to the app's real webhook URL (sent once,
 * never retried), then waits for that one attempt. Exit 0 when the receiver took it, 3 when it did not.
 */
export async function testEvent(event: string, options: { app: string; json?: boolean }): Promise<void> {
  const type = parseEvent('<event>', event);
  const api = new PlazaApi(await loadSettings());
  const { sendTestWebhook: sent } = await api.request<{ sendTestWebhook: TestDelivery }>(SEND_TEST, { appId: options.app, event: type });
  const spinner = progress(`Sending a test ${sent.eventName} (${sent.id}) to the webhook URL of ${options.app}`, options.json);
  let delivery = sent;
  const deadline = Date.now() + WAIT_LIMIT_MS;
  try {
    while (!settled(delivery) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      const { webhookDelivery } = await api.request<{ webhookDelivery: TestDelivery | null }>(DELIVERY, { id: sent.id });
      if (!webhookDelivery) throw new CliError(`The test delivery ${sent.id} is no longer in the log`);
      delivery = webhookDelivery;
    }
  } finally {
    spinner.stop();
  }
  const succeeded = delivery.status === 'SUCCEEDED';
  if (!succeeded) process.exitCode = DELIVERY_FAILED_EXIT_CODE;
  if (options.json) return printJson(delivery);
  const attempt = delivery.attempts[delivery.attempts.length - 1];
  const where = attempt?.url ? ` to ${attempt.url}` : '';
  const why = delivery.heldReason ? `held: ${delivery.heldReason}` : settled(delivery) ? lastAttempt(delivery) : `not finished after ${WAIT_LIMIT_MS / 1000} s`;
  process.stdout.write(`Test ${delivery.eventName} ${delivery.id}${where}: ${paintStatus(delivery.status)}, ${why}\n`);
  if (!succeeded) process.stderr.write(colours.dim(`plaza deliveries --app ${delivery.appId} --purchase ${delivery.purchaseId} shows it; a test event is never retried\n`));
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
