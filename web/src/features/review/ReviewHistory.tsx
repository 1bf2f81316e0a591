import { graphql, useFragment, type FragmentType } from '../../gql';
import { codeLabel, useFormat, useT } from '../../i18n/i18n';
import type { MessageKey } from '../../i18n/strings';

/** What the history shows of each decision; the developer's app page and the reviewer's page both select it. */
export const ReviewHistoryDecision = graphql(`
  fragment ReviewHistoryDecision on ReviewDecision {
    id
    outcome
    reasons
    note
    decidedAt
    appRevision
  }
`);

/**
 * Every review decision on an app, in the order the server gives them. Reviewers also see which revision
 * each decision was about; developers see their listing as it is now, so the revision number tells them nothing.
 */
export function ReviewHistory(props: { decisions: readonly FragmentType<typeof ReviewHistoryDecision>[]; showRevision?: boolean }) {
  const t = useT();
  const format = useFormat();
  const decisions = useFragment(ReviewHistoryDecision, props.decisions);
  return (
    <section className="card" aria-labelledby="review-history-heading">
      <h2 id="review-history-heading">{t('dev.history')}</h2>
      {decisions.length === 0 ? (
        <p>{t('dev.noDecision')}</p>
      ) : (
        <ol className="history">
          {decisions.map((decision) => (
            <li key={decision.id}>
              <span className={`badge status-${decision.outcome.toLowerCase()}`}>{t(`status.${decision.outcome}` as MessageKey)}</span>{' '}
              <time dateTime={decision.decidedAt}>{format.dateTime(decision.decidedAt)}</time>
              {props.showRevision && ` · ${t('review.revision')} ${decision.appRevision}`}
              {decision.reasons.length > 0 && (
                <ul>
                  {decision.reasons.map((reason) => (
                    <li key={reason}>{codeLabel(t, 'reason', reason)}</li>
                  ))}
                </ul>
              )}
              {decision.note && <p className="note">{decision.note}</p>}
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
