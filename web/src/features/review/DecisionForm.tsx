import { useMutation } from '@apollo/client/react';
import { useState, type FormEvent } from 'react';
import { useT } from '../../i18n/i18n';
import type { MessageKey } from '../../i18n/strings';
import { serverProblem, type ServerProblem } from '../../ui/graphql-errors';
import { decisionProblems, REJECTION_REASONS, toDecisionInput, type DecisionOutcome, type RejectionReasonValue } from './decision-rules';
import { DecideReviewMutation } from './review-operations';

interface DecisionFormProps {
  appId: string;
  /** The revision on screen; sent so that a newer edit turns this decision into a CONFLICT. */
  revision: number;
  onDecided: (outcome: DecisionOutcome) => void;
  onReload: () => void;
}

export function DecisionForm({ appId, revision, onDecided, onReload }: DecisionFormProps) {
  const t = useT();
  const [decide, { loading }] = useMutation(DecideReviewMutation);
  const [outcome, setOutcome] = useState<DecisionOutcome | null>(null);
  const [reasons, setReasons] = useState<RejectionReasonValue[]>([]);
  const [note, setNote] = useState('');
  const [attempted, setAttempted] = useState(false);
  const [problem, setProblem] = useState<ServerProblem | null>(null);

  const values = { outcome, reasons, note };
  const problems = decisionProblems(values);
  // The note rule is shown as soon as OTHER is ticked; the missing-reason one only after a try, not on arrival.
  const showReasonProblem = attempted && problems.reasons !== undefined;
  const noteRequired = outcome === 'REJECTED' && reasons.includes('OTHER');
  // Only fields on screen can carry the server's message; anything else goes to the general alert.
  const fieldsOnScreen = outcome === 'REJECTED' ? ['reasons', 'note'] : [];
  const serverField = problem?.code !== 'CONFLICT' && problem?.field && fieldsOnScreen.includes(problem.field) ? problem.field : undefined;

  function toggle(reason: RejectionReasonValue, checked: boolean) {
    setReasons((current) => (checked ? REJECTION_REASONS.filter((r) => r === reason || current.includes(r)) : current.filter((r) => r !== reason)));
  }

  async function submit(event: FormEvent) {
    event.preventDefault();
    setAttempted(true);
    setProblem(null);
    if (outcome === null || Object.keys(problems).length > 0) return;
    try {
      await decide({ variables: { input: toDecisionInput(appId, revision, { ...values, outcome }) } });
      onDecided(outcome);
    } catch (error) {
      setProblem(serverProblem(error));
    }
  }

  const fieldProblem = (field: 'reasons' | 'note') => (serverField === field ? problem?.message : undefined);
  // Said after a try only: arriving at an empty choice is not a mistake.
  const outcomeMessage = attempted && problems.outcome ? t('review.needsOutcome') : undefined;
  const reasonsMessage = showReasonProblem ? t('review.needsReason') : fieldProblem('reasons');
  const noteMessage = (attempted && problems.note ? t('review.needsNote') : undefined) ?? fieldProblem('note');

  return (
    // submit() shows its own failure in the form.
    <form className="decision-form" onSubmit={(event) => void submit(event)} noValidate aria-labelledby="decision-heading">
      <h2 id="decision-heading">{t('review.decision')}</h2>
      <fieldset className="field" aria-invalid={outcomeMessage ? true : undefined} aria-describedby={outcomeMessage ? 'decision-outcome-problem' : undefined}>
        <legend>{t('review.outcome')}</legend>
        <label>
          <input type="radio" name="outcome" value="APPROVED" checked={outcome === 'APPROVED'} onChange={() => setOutcome('APPROVED')} /> {t('review.approve')}
        </label>
        <label>
          <input type="radio" name="outcome" value="REJECTED" checked={outcome === 'REJECTED'} onChange={() => setOutcome('REJECTED')} /> {t('review.reject')}
        </label>
        {outcomeMessage && (
          <p id="decision-outcome-problem" className="field-problem">
            {outcomeMessage}
          </p>
        )}
      </fieldset>
      {outcome === 'REJECTED' && (
        <>
          <fieldset className="field" aria-invalid={reasonsMessage ? true : undefined} aria-describedby={reasonsMessage ? 'decision-reasons-problem' : undefined}>
            <legend>{t('review.reasons')}</legend>
            {REJECTION_REASONS.map((reason) => (
              <label key={reason}>
                <input type="checkbox" value={reason} checked={reasons.includes(reason)} onChange={(event) => toggle(reason, event.target.checked)} />{' '}
                {t(`reason.${reason}` as MessageKey)}
              </label>
            ))}
            {reasonsMessage && (
              <p id="decision-reasons-problem" className="field-problem">
                {reasonsMessage}
              </p>
            )}
          </fieldset>
          <div className="field">
            <label htmlFor="decision-note">{t('review.note')}</label>
            <textarea
              id="decision-note"
              value={note}
              required={noteRequired}
              aria-invalid={noteMessage ? true : undefined}
              aria-describedby={['decision-note-hint', noteMessage ? 'decision-note-problem' : ''].filter(Boolean).join(' ')}
              onChange={(event) => setNote(event.target.value)}
            />
            <p id="decision-note-hint" className={noteRequired && note.trim() === '' ? 'hint warning' : 'hint'} aria-live="polite">
              {noteRequired ? t('review.noteRequired') : t('review.noteOptional')}
            </p>
            {noteMessage && (
              <p id="decision-note-problem" className="field-problem">
                {noteMessage}
              </p>
            )}
          </div>
        </>
      )}
      {problem?.code === 'CONFLICT' && (
        <div className="error" role="alert">
          <p>
            <strong>{t('review.conflict')}</strong> {problem.message}
          </p>
          <button type="button" onClick={onReload}>
            {t('review.reload')}
          </button>
        </div>
      )}
      {problem && problem.code !== 'CONFLICT' && !serverField && (
        <div className="error" role="alert">
          <p>{problem.message}</p>
        </div>
      )}
      <div className="actions">
        <button type="submit" disabled={loading}>
          {loading ? t('review.sending') : outcome === 'APPROVED' ? t('review.submitApprove') : outcome === 'REJECTED' ? t('review.submitReject') : t('review.submitDecision')}
        </button>
      </div>
    </form>
  );
}
