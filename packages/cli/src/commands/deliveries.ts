import { PlazaApi, requireOwnApp } from '../api.js';
import { loadSettings } from '../config.js';
import { DEFAULT_LIMIT, parseEvent, parsePositiveInt, parseStatus, parseTime } from '../parse.js';
import { colours, paintStatus, printJson, printTable, progress } from '../output.js';
import { parseEndpointId } from './endpoints.js';

export const DELIVERY_FIELDS = `id appId endpointId eventName status attemptCount purchaseId heldReason createdAt updatedAt nextAttemptAt payload
  attempts { number trigger outcome statusCode error durationMs finished startedAt }`;

export interface Delivery {
  id: string;
  appId: string;
  /** Kept after the endpoint is removed. */
  endpointId: string;
  eventName: string;
  status: string;
  attemptCount: number;
  purchaseId: string;
  heldReason: string | null;
  createdAt: string;
  updatedAt: string;
  nextAttemptAt: string | null;
  payload: string;
  attempts: { number: number; trigger: string; outcome: string; statusCode: number | null; error: string | null; durationMs: number; finished: boolean; startedAt: string }[];
}

const PAGE = `query($first: Int!, $after: String, $filter: WebhookDeliveryFilter) {
  webhookDeliveries(first: $first, after: $after, filter: $filter) { edges { node { ${DELIVERY_FIELDS} } } pageInfo { hasNextPage endCursor } }
}`;
const PAGE_SIZE = 100;

export interface DeliveriesOptions {
  app?: string;
  status?: string;
  event?: string;
  purchase?: string;
  endpoint?: string;
  since?: string;
  limit?: string;
  json?: boolean;
}

/** What the last attempt did, in a few characters: "200 31ms", "timeout", "-". */
export function lastAttempt(d: Delivery): string {
  const last = d.attempts[d.attempts.length - 1];
  if (!last) return d.heldReason ? 'held' : '-';
  if (!last.finished) return 'in flight';
  return last.statusCode !== null ? `${last.statusCode} ${last.durationMs}ms` : (last.error ?? last.outcome).slice(0, 40);
}

export async function deliveries(options: DeliveriesOptions): Promise<void> {
  const limit = options.limit === undefined ? DEFAULT_LIMIT : parsePositiveInt('--limit', options.limit);
  const filter = {
    ...(options.app ? { appId: options.app } : {}),
    ...(options.status ? { status: parseStatus('--status', options.status) } : {}),
    ...(options.event ? { event: parseEvent('--event', options.event) } : {}),
    ...(options.purchase ? { purchaseId: options.purchase } : {}),
    ...(options.endpoint ? { endpointId: parseEndpointId('--endpoint', options.endpoint) } : {}),
    ...(options.since ? { since: parseTime('--since', options.since).toISOString() } : {}),
  };
  const api = new PlazaApi(await loadSettings());
  if (options.app) await requireOwnApp(api, options.app);
  const spinner = progress('Reading the delivery log', options.json);
  const found: Delivery[] = [];
  let after: string | null = null;
  try {
    // Newest first, page after page, until the log ends or --limit is reached.
    while (found.length < limit) {
      const page: { webhookDeliveries: { edges: { node: Delivery }[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } } } = await api.request(PAGE, {
        first: Math.min(PAGE_SIZE, limit - found.length),
        after,
        filter,
      });
      const nodes = page.webhookDeliveries.edges.map((e) => e.node);
      if (options.json) nodes.forEach(printJson);
      found.push(...nodes);
      spinner.update(`Reading the delivery log: ${found.length}`);
      if (!page.webhookDeliveries.pageInfo.hasNextPage || !page.webhookDeliveries.pageInfo.endCursor) break;
      after = page.webhookDeliveries.pageInfo.endCursor;
    }
  } finally {
    spinner.stop();
  }
  if (options.json) return;
  if (found.length === 0) return void process.stdout.write('No deliveries match\n');
  printTable(
    ['CREATED', 'ID', 'ENDPOINT', 'EVENT', 'STATUS', 'ATTEMPTS', 'LAST', 'PURCHASE'],
    found.map((d) => [d.createdAt.replace('T', ' ').slice(0, 19), d.id, d.endpointId, d.eventName, d.status, String(d.attemptCount), lastAttempt(d), d.purchaseId]),
    (column, cell, padded) => (column === 4 ? paintStatus(cell, padded) : padded),
  );
  if (found.length === limit) process.stderr.write(colours.dim(`Showing the newest ${limit}; --limit shows more\n`));
}
