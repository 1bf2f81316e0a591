import { useEffect, useRef } from 'react';
import { graphql, useFragment, type FragmentType } from '../../gql';
import type { DeliveryAttemptFieldsFragment } from '../../gql/graphql';
import { useFormat, useT } from '../../i18n/i18n';
import { LastResponse } from './last-response';

/** What the attempt list shows; the delivery query and the redelivery mutation both select it. */
export const DeliveryAttemptFields = graphql(`
  fragment DeliveryAttemptFields on DeliveryAttempt {
    number
    trigger
    startedAt
    durationMs
    statusCode
    error
    responseBodyExcerpt
    url
    finished
    finishedAt
    outcome
    requestHeaders {
      name
      value
    }
  }
`);

type Attempt = DeliveryAttemptFieldsFragment;
type Header = Attempt['requestHeaders'][number];

const headerKey = (header: Header) => `${header.name}\n${header.value}`;

/**
 * The headers every attempt sent alike (the delivery's id, the event, the content type…), listed once; each
 * attempt then lists only its own (signature, timestamp, attempt number). With one attempt, all are shared.
 */
export function splitHeaders(attempts: readonly Attempt[]): { shared: Header[]; own: (attempt: Attempt) => Header[] } {
  const [first, ...others] = attempts.filter((attempt) => attempt.requestHeaders.length > 0);
  if (!first) return { shared: [], own: () => [] };
  const everywhere = new Set(first.requestHeaders.map(headerKey));
  for (const attempt of others) {
    const keys = new Set(attempt.requestHeaders.map(headerKey));
    for (const key of everywhere) if (!keys.has(key)) everywhere.delete(key);
  }
  return {
    shared: first.requestHeaders.filter((header) => everywhere.has(headerKey(header))),
    own: (attempt) => attempt.requestHeaders.filter((header) => !everywhere.has(headerKey(header))),
  };
}

function useTriggerWord() {
  const t = useT();
  return (trigger: string) => (trigger === 'MANUAL' ? t('webhooks.trigger.MANUAL') : trigger === 'SCHEDULED' ? t('webhooks.trigger.SCHEDULED') : trigger);
}

function HeaderTable({ headers, label }: { headers: readonly Header[]; label: string }) {
  return (
    // Focusable, so keyboard users can scroll long header values on a narrow screen (axe: scrollable-region-focusable).
    <div className="table-scroll" tabIndex={0} role="region" aria-label={label}>
      <table className="header-table">
        <tbody>
          {headers.map((header, index) => (
            <tr key={`${header.name}-${index}`}>
              <th scope="row" className="mono">
                {header.name}
              </th>
              <td className="mono">{header.value}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/**
 * A delivery's attempts, newest first: a compact timeline (one chip each), the headers they share, and one
 * card per attempt of which only the latest is open. `highlight` is an attempt just made by Redeliver: it is
 * marked, and the keyboard focus moves to it.
 */
export function DeliveryAttempts(props: { attempts: readonly FragmentType<typeof DeliveryAttemptFields>[]; highlight?: number | null }) {
  const t = useT();
  const format = useFormat();
  const triggerWord = useTriggerWord();
  const attempts = [...useFragment(DeliveryAttemptFields, props.attempts)].sort((a, b) => b.number - a.number);
  const highlighted = useRef<HTMLElement | null>(null);
  const present = props.highlight != null && attempts.some((attempt) => attempt.number === props.highlight);
  useEffect(() => {
    if (present) highlighted.current?.focus();
  }, [present, props.highlight]);

  const latest = attempts[0]?.number;
  if (latest === undefined) return <p>{t('webhooks.noAttempts')}</p>;
  const headers = splitHeaders(attempts);
  const openAttempt = (number: number) => {
    const details = document.querySelector<HTMLDetailsElement>(`#attempt-${number} details`);
    if (!details) return;
    details.open = true;
    details.querySelector('summary')?.focus();
  };

  return (
    <>
      <ol className="attempt-timeline" aria-label={t('webhooks.timelineLabel')}>
        {attempts.map((attempt) => (
          <li key={attempt.number} className={attempt.number === props.highlight ? 'attempt-new' : undefined}>
            <button type="button" className="attempt-chip" onClick={() => openAttempt(attempt.number)}>
              {t('webhooks.attemptChip', { number: attempt.number, trigger: triggerWord(attempt.trigger) })}
              <LastResponse attempt={attempt} />
            </button>
          </li>
        ))}
      </ol>
      <ol className="delivery-attempts">
        {attempts.map((attempt) => {
          const own = headers.own(attempt);
          const isNew = attempt.number === props.highlight;
          return (
            <li key={attempt.number} id={`attempt-${attempt.number}`} className={`card${isNew ? ' attempt-new' : ''}`} data-testid={`attempt-${attempt.number}`}>
              {/* Only the newest starts open: a page of six failed attempts is six lines, not six screens. */}
              <details open={attempt.number === latest}>
                <summary
                  ref={
                    isNew
                      ? (element) => {
                          highlighted.current = element;
                        }
                      : undefined
                  }
                >
                  <h3>
                    {t('webhooks.attemptHeading', { number: attempt.number, trigger: triggerWord(attempt.trigger) })}
                    {isNew && <span className="badge attempt-new-badge"> {t('webhooks.newAttempt')}</span>}
                  </h3>{' '}
                  <LastResponse attempt={attempt} />
                </summary>
                <dl className="facts">
                  <dt>{t('webhooks.outcome')}</dt>
                  <dd data-testid={`attempt-${attempt.number}-outcome`}>{t(`webhooks.outcome.${attempt.outcome}`)}</dd>
                  <dt>{t('webhooks.startedAt')}</dt>
                  <dd>
                    <time dateTime={attempt.startedAt}>{format.instant(attempt.startedAt)}</time>
                  </dd>
                  {attempt.finishedAt && (
                    <>
                      <dt>{t('webhooks.finishedAt')}</dt>
                      <dd>
                        <time dateTime={attempt.finishedAt}>{format.instant(attempt.finishedAt)}</time>
                      </dd>
                    </>
                  )}
                  <dt>{t('webhooks.duration')}</dt>
                  <dd>{attempt.outcome === 'IN_FLIGHT' ? t('webhooks.inFlight', { ms: attempt.durationMs }) : `${attempt.durationMs} ms`}</dd>
                  <dt>{t('webhooks.statusCode')}</dt>
                  {/* Null means "no answer yet" while in flight, and "none came" only once the attempt ended. */}
                  <dd>{attempt.statusCode ?? (attempt.outcome === 'IN_FLIGHT' ? t('webhooks.awaitingResponse') : t('webhooks.noResponse'))}</dd>
                  {attempt.url && (
                    <>
                      <dt>{t('webhooks.url')}</dt>
                      <dd className="mono">{attempt.url}</dd>
                    </>
                  )}
                  {attempt.error && (
                    <>
                      <dt>{t('webhooks.error')}</dt>
                      <dd>{attempt.error}</dd>
                    </>
                  )}
                </dl>
                {own.length > 0 && (
                  <>
                    <h4>{headers.shared.length > 0 ? t('webhooks.ownHeaders') : t('webhooks.requestHeaders')}</h4>
                    <HeaderTable headers={own} label={t('webhooks.headersTableLabel', { number: attempt.number })} />
                  </>
                )}
                {attempt.responseBodyExcerpt && (
                  <>
                    <h4>{t('webhooks.responseExcerpt')}</h4>
                    <pre className="payload">{attempt.responseBodyExcerpt}</pre>
                  </>
                )}
              </details>
            </li>
          );
        })}
      </ol>
      {headers.shared.length > 0 && (
        <>
          <h3>{t('webhooks.sharedHeaders')}</h3>
          <HeaderTable headers={headers.shared} label={t('webhooks.sharedHeadersLabel')} />
        </>
      )}
    </>
  );
}
