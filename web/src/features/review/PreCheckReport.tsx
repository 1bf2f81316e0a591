import type { MessageKey } from '../../i18n/strings';
import { useT } from '../../i18n/i18n';

interface PreCheckReportProps {
  report: { status: string; results: readonly { check: string; outcome: string; detail: string }[] } | null | undefined;
  headingId: string;
}

const KNOWN_CHECKS = ['APP_URL_HTTPS', 'APP_URL_FRAMEABLE', 'ICON_IMAGE', 'ICON_SIZE', 'PRE_CHECKS'];
const KNOWN_OUTCOMES = ['PASS', 'WARN', 'FAIL'];
const KNOWN_STATUSES = ['PENDING', 'DONE', 'SUPERSEDED'];

/** The automated review pre-checks, as the developer and the reviewer both see them. */
export function PreCheckReport({ report, headingId }: PreCheckReportProps) {
  const t = useT();
  // A check or outcome this build does not know yet is shown as the server sent it rather than hidden.
  const label = (prefix: string, known: string[], value: string) => (known.includes(value) ? t(`${prefix}.${value}` as MessageKey) : value);
  return (
    <section className="card" aria-labelledby={headingId}>
      <h2 id={headingId}>{t('dev.preChecks')}</h2>
      {!report ? (
        <p>{t('dev.noPreChecks')}</p>
      ) : (
        <>
          <p className="hint">{label('preCheck.status', KNOWN_STATUSES, report.status)}</p>
          <ul className="pre-check-list">
            {report.results.map((result) => (
              <li key={result.check}>
                {/* The outcome is spelled out, so the colour only repeats what the text says. */}
                <span className={`badge pre-check-${result.outcome.toLowerCase()}`}>{label('preCheck.outcome', KNOWN_OUTCOMES, result.outcome)}</span>{' '}
                <strong>{label('preCheck.check', KNOWN_CHECKS, result.check)}</strong>
                <p className="hint">{result.detail}</p>
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}
