/** As the Standard Webhooks libraries (and Svix) default: a request more than 5 minutes off is refused. */
export const DEFAULT_REPLAY_TOLERANCE_SECONDS = 5 * 60;

type Headers = { readonly [name: string]: string | string[] | undefined };

function single(headers: Headers, name: string): string | undefined {
  const value = headers[name];
  return typeof value === 'string' ? value : undefined;
}

/**
 * Why `webhook-timestamp` does not make a request fresh, in words for the 401 answer and the
 * platform's delivery log; `undefined` when it is within `toleranceSeconds` of `now`. Only the
 * timestamp is judged here: the signature that covers it is checked by `verifyStandardWebhook`.
 */
export function webhookTimestampProblem(headers: Headers, toleranceSeconds: number, now: Date): string | undefined {
  const missing = ['webhook-id', 'webhook-timestamp', 'webhook-signature'].filter((name) => !single(headers, name));
  if (missing.length > 0) {
    return `Missing ${missing.join(', ')}: Plaza signs every delivery with these Standard Webhooks headers, which replay protection needs`;
  }
  const timestamp = single(headers, 'webhook-timestamp')!;
  if (!/^\d{1,15}$/.test(timestamp)) return 'webhook-timestamp must be whole seconds since 1970 (Unix time)';
  const offSeconds = Math.floor(now.getTime() / 1000) - Number(timestamp);
  if (offSeconds > toleranceSeconds) {
    return `Webhook timestamp too old: signed ${offSeconds} s ago, more than the ${toleranceSeconds} s tolerance (a replay, or this server's clock is wrong)`;
  }
  if (-offSeconds > toleranceSeconds) {
    return `Webhook timestamp too new: signed ${-offSeconds} s in the future, more than the ${toleranceSeconds} s tolerance (this server's clock is wrong)`;
  }
  return undefined;
}
