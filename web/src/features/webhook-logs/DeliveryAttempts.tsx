import { graphql, useFragment, type FragmentType } from '../../gql';
import { useFormat, useT } from '../../i18n/i18n';

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

export function DeliveryAttempts(props: { attempts: readonly FragmentType<typeof DeliveryAttemptFields>[] }) {
  const t = useT();
  const format = useFormat();
  const attempts = useFragment(DeliveryAttemptFields, props.attempts);
  if (attempts.length === 0) return <p>{t('webhooks.noAttempts')}</p>;
  return (
    <ol className="delivery-attempts">
      {attempts.map((attempt) => (
        <li key={attempt.number} className="card" data-testid={`attempt-${attempt.number}`}>
          <h3>
            {t('webhooks.attemptHeading', {
              number: attempt.number,
              trigger: attempt.trigger === 'MANUAL' ? t('webhooks.trigger.MANUAL') : attempt.trigger === 'SCHEDULED' ? t('webhooks.trigger.SCHEDULED') : attempt.trigger,
            })}
          </h3>
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
          <h4>{t('webhooks.requestHeaders')}</h4>
          {/* Focusable, so keyboard users can scroll long header values on a narrow screen (axe: scrollable-region-focusable). */}
          <div className="table-scroll" tabIndex={0} role="region" aria-label={t('webhooks.headersTableLabel', { number: attempt.number })}>
            <table className="header-table">
              <tbody>
                {attempt.requestHeaders.map((header, index) => (
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
          {attempt.responseBodyExcerpt && (
            <>
              <h4>{t('webhooks.responseExcerpt')}</h4>
              <pre className="payload">{attempt.responseBodyExcerpt}</pre>
            </>
          )}
        </li>
      ))}
    </ol>
  );
}
