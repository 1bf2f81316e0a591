import { graphql, useFragment, type FragmentType } from '../../gql';
import { useT } from '../../i18n/i18n';
import type { MessageKey } from '../../i18n/strings';
import { reviewAppPath } from '../../routes';
import { Link } from '../../ui/Link';

/** Who made an app, as a reviewer weighs it: the queue and the review page both select it. */
export const ReviewDeveloper = graphql(`
  fragment ReviewDeveloper on AppDeveloper {
    id
    name
    email
    otherApps {
      id
      name
      status
    }
    decisions {
      approved
      rejected
    }
  }
`);

/** One line under a queued app: who, how many other apps, how their decisions went. */
export function DeveloperLine(props: { developer: FragmentType<typeof ReviewDeveloper> }) {
  const t = useT();
  const developer = useFragment(ReviewDeveloper, props.developer);
  return (
    <p className="review-developer">
      {t('review.byDeveloper', { name: developer.name })} · {t('review.otherAppCount', { count: developer.otherApps.length })} · {t('review.decisionCounts', developer.decisions)}
    </p>
  );
}

/** The review page's account of the developer: name and address, past decisions, and each other app with its state. */
export function DeveloperRecord(props: { developer: FragmentType<typeof ReviewDeveloper> }) {
  const t = useT();
  const developer = useFragment(ReviewDeveloper, props.developer);
  return (
    <section className="card" aria-labelledby="review-developer-heading">
      <h2 id="review-developer-heading">{t('review.developer')}</h2>
      <dl className="facts">
        <dt>{t('review.developerName')}</dt>
        <dd>
          {developer.name} <span className="hint break-anywhere">({developer.email})</span>
        </dd>
        <dt>{t('review.pastDecisions')}</dt>
        <dd>{t('review.decisionCounts', developer.decisions)}</dd>
      </dl>
      <h3>{t('review.otherApps')}</h3>
      {developer.otherApps.length === 0 ? (
        <p>{t('review.noOtherApps')}</p>
      ) : (
        <ul className="developer-apps">
          {developer.otherApps.map((app) => (
            <li key={app.id}>
              <Link href={reviewAppPath(app.id)}>{app.name}</Link> <span className={`badge status-${app.status.toLowerCase()}`}>{t(`status.${app.status}` as MessageKey)}</span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
