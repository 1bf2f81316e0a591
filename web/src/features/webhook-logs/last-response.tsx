import { useFormat, useT } from '../../i18n/i18n';
import type { AttemptOutcome } from '../../gql/graphql';

/** What a log row and a timeline chip need of an attempt to say how the receiver answered. */
export interface AttemptResponse {
  statusCode?: number | null;
  error?: string | null;
  durationMs: number;
  outcome: AttemptOutcome;
}

/**
 * The receiver's answer in a word, as GitHub's and Stripe's logs show it: the HTTP status when one came,
 * else why none did. The server's errors start with what happened ("timeout: …", "connection refused",
 * "refused: <address policy>"); the whole text stays on the delivery page.
 */
export function responseKind(attempt: AttemptResponse): { key: 'http' | 'timeout' | 'refused' | 'error' | 'inFlight'; status?: number } {
  if (attempt.outcome === 'IN_FLIGHT') return { key: 'inFlight' };
  if (attempt.statusCode != null) return { key: 'http', status: attempt.statusCode };
  const error = attempt.error ?? '';
  if (error.startsWith('timeout')) return { key: 'timeout' };
  if (/refused/.test(error)) return { key: 'refused' };
  return { key: 'error' };
}

/** "HTTP 500 · 12 ms", "Timeout · 10,000 ms", "Refused · 3 ms"; "Not sent yet" before the first attempt. */
export function LastResponse({ attempt }: { attempt: AttemptResponse | null | undefined }) {
  const t = useT();
  const format = useFormat();
  if (!attempt) return <span className="last-response muted">{t('webhooks.response.none')}</span>;
  const kind = responseKind(attempt);
  const word = kind.key === 'http' ? t('webhooks.response.http', { status: kind.status! }) : t(`webhooks.response.${kind.key}`);
  const good = kind.key === 'http' && kind.status! >= 200 && kind.status! < 300;
  return (
    <span className={`last-response ${kind.key === 'inFlight' ? 'muted' : good ? 'response-ok' : 'response-bad'}`}>
      {kind.key === 'inFlight' ? word : `${word} · ${format.number(attempt.durationMs)} ms`}
    </span>
  );
}
