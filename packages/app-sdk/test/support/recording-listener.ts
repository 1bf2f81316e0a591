import type { WebhookDeliveryMeta, WebhookEvent } from '../../src/server/index.js';

/** Records what onEvent received; `gate` lets a test hold processing open. */
export function recordingListener(gate?: Promise<void>) {
  const started: { event: WebhookEvent; meta: WebhookDeliveryMeta }[] = [];
  const finished: WebhookEvent[] = [];
  const onEvent = async (event: WebhookEvent, meta: WebhookDeliveryMeta) => {
    started.push({ event, meta });
    await gate;
    finished.push(event);
  };
  return { onEvent, started, finished };
}
