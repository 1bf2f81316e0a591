import { codeLabel, useT } from '../../i18n/i18n';

interface PreCheckReportProps {
  report: { status: string; results: readonly { check: string; outcome: string; detail: string }[] } | null | undefined;
  headingId: string;
}

/** The automated review pre-checks, as the developer and the reviewer both see them. */
export function PreCheckReport({ report, headingId }: PreCheckReportProps) {
  const t = useT();
  return (
    <section className="card" aria-labelledby={headingId}>
      <h2 id={headingId}>{t('dev.preChecks')}</h2>
      {!report ? (
        <p>{t('dev.noPreChecks')}</p>
      ) : (
        <>
          <p className="hint">{codeLabel(t, 'preCheck.status', report.status)}</p>
          <ul className="pre-check-list">
            {report.results.map((result) => (
              <li key={result.check}>
                {/* The outcome is spelled out, so the colour only repeats what the text says. */}
                <span className={`badge pre-check-${result.outcome.toLowerCase()}`}>{codeLabel(t, 'preCheck.outcome', result.outcome)}</span>{' '}
                <strong>{codeLabel(t, 'preCheck.check', result.check)}</strong>
                <p className="hint">{result.detail}</p>
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}
