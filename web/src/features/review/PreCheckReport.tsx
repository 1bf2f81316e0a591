import { codeLabel, useLocale, useT } from '../../i18n/i18n';
import { isMessageKey } from '../../i18n/words';

interface PreCheckReportProps {
  report: { status: string; results: readonly { check: string; outcome: string; detail: string }[] } | null | undefined;
  headingId: string;
}

/** The automated review pre-checks, as the developer and the reviewer both see them. */
export function PreCheckReport({ report, headingId }: PreCheckReportProps) {
  const t = useT();
  const locale = useLocale();
  return (
    <section className="card" aria-labelledby={headingId}>
      <h2 id={headingId}>{t('dev.preChecks')}</h2>
      {!report ? (
        <p>{t('dev.noPreChecks')}</p>
      ) : (
        <>
          <p className="hint">{codeLabel(t, 'preCheck.status', report.status)}</p>
          <ul className="pre-check-list">
            {/* A check may come once per item (SCREENSHOT_IMAGE, one a screenshot), in the server's order. */}
            {report.results.map((result, index) => (
              <li key={`${result.check}-${index}`}>
                {/* The outcome is spelled out, so the colour only repeats what the text says. */}
                <span className={`badge pre-check-${result.outcome.toLowerCase()}`}>{codeLabel(t, 'preCheck.outcome', result.outcome)}</span>{' '}
                <strong>{codeLabel(t, 'preCheck.check', result.check)}</strong>
                <PreCheckDetail check={result.check} outcome={result.outcome} detail={result.detail} english={locale === 'en'} />
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}

/**
 * The server writes each result's detail in English, for the reviewer (facts such as "HTTPS 200 in 35 ms"),
 * with the check and outcome as codes. A reader of another language gets the words for that pair of codes,
 * and the server's text beneath it, marked as English, for its facts; a pair this build has no words for
 * shows the server's text alone.
 */
function PreCheckDetail({ check, outcome, detail, english }: { check: string; outcome: string; detail: string; english: boolean }) {
  const t = useT();
  const key = `preCheck.detail.${check}.${outcome}`;
  if (english || !isMessageKey(key)) return <p className="hint">{detail}</p>;
  return (
    <>
      <p className="hint">{t(key)}</p>
      <details className="hint">
        <summary>{t('preCheck.serverDetail')}</summary>
        <p lang="en">{detail}</p>
      </details>
    </>
  );
}
