import { useMutation } from '@apollo/client/react';
import { useState, type FormEvent } from 'react';
import { useT, type Translate } from '../../i18n/i18n';
import { serverProblem } from '../../ui/graphql-errors';
import { StatusMessage } from '../../ui/StatusMessage';
import { CreditPointsMutation } from './admin-operations';
import { useFindUser, type AdminUser } from './find-user';

type CreditField = 'email' | 'points' | 'reason';
type Problems = Partial<Record<CreditField, string>>;

/** Every problem the form can tell before asking the server, one message each on the field it concerns. */
function localProblems(t: Translate, email: string, points: string, reason: string): Problems {
  const problems: Problems = {};
  if (email.trim() === '') problems.email = t('admin.emailRequired');
  // Crediting takes points away from no one: zero, negative and fractional amounts are refused here.
  if (!/^\d+$/.test(points.trim()) || Number(points.trim()) <= 0) problems.points = t('admin.pointsPositive');
  if (reason.trim() === '') problems.reason = t('admin.reasonRequired');
  return problems;
}

interface PendingCredit {
  user: AdminUser;
  points: number;
  reason: string;
}

/**
 * Credits by e-mail in two steps: Continue finds the account and shows who it is, Confirm credits. The
 * form is emptied after a credit, so pressing again cannot credit the same person twice by accident.
 */
export function CreditPointsForm() {
  const t = useT();
  const findUser = useFindUser();
  const [credit, { loading: crediting }] = useMutation(CreditPointsMutation);
  const [email, setEmail] = useState('');
  const [points, setPoints] = useState('');
  const [reason, setReason] = useState('');
  const [finding, setFinding] = useState(false);
  const [problems, setProblems] = useState<Problems>({});
  const [formProblem, setFormProblem] = useState<string | null>(null);
  const [pending, setPending] = useState<PendingCredit | null>(null);
  const [done, setDone] = useState<string | null>(null);

  function edit(field: CreditField, set: (value: string) => void) {
    return (value: string) => {
      set(value);
      // What was confirmed or complained about was the old value.
      setPending(null);
      setDone(null);
      setProblems((previous) => ({ ...previous, [field]: undefined }));
    };
  }

  async function review(event: FormEvent) {
    event.preventDefault();
    setDone(null);
    setFormProblem(null);
    const found = localProblems(t, email, points, reason);
    setProblems(found);
    if (Object.keys(found).length > 0) return;
    setFinding(true);
    try {
      const user = await findUser(email);
      if (!user) setProblems({ email: t('admin.noUser', { email: email.trim() }) });
      else setPending({ user, points: Number(points.trim()), reason: reason.trim() });
    } catch (error) {
      setFormProblem(serverProblem(error).message);
    } finally {
      setFinding(false);
    }
  }

  async function confirm() {
    if (!pending) return;
    const { user } = pending;
    setPending(null);
    try {
      const result = await credit({ variables: { userId: user.id, points: pending.points, reason: pending.reason } });
      if (!result.data) return;
      setDone(t('admin.credited', { points: pending.points, email: user.email, balance: result.data.creditPoints.points }));
      setEmail('');
      setPoints('');
      setReason('');
    } catch (error) {
      const problem = serverProblem(error);
      const field = problem.field === 'userId' ? 'email' : problem.field;
      if (field === 'email' || field === 'points' || field === 'reason') setProblems({ [field]: problem.message });
      else setFormProblem(problem.message);
    }
  }

  const inputProps = (field: CreditField) => ({
    id: `credit-${field}`,
    'aria-invalid': problems[field] ? true : undefined,
    'aria-describedby': problems[field] ? `credit-${field}-problem` : undefined,
  });
  const fieldMessage = (field: CreditField) =>
    problems[field] ? (
      <p id={`credit-${field}-problem`} className="field-problem">
        {problems[field]}
      </p>
    ) : null;

  return (
    <section className="card" aria-labelledby="admin-credit-heading">
      <h2 id="admin-credit-heading">{t('admin.creditHeading')}</h2>
      {/* review() shows its own failure in the form. */}
      <form onSubmit={(event) => void review(event)} noValidate>
        <div className="field">
          <label htmlFor="credit-email">{t('admin.email')}</label>
          <input {...inputProps('email')} className="input-email" type="email" value={email} onChange={(event) => edit('email', setEmail)(event.target.value)} autoComplete="off" />
          {fieldMessage('email')}
        </div>
        <div className="field">
          <label htmlFor="credit-points">{t('admin.points')}</label>
          <input {...inputProps('points')} className="input-points" inputMode="numeric" value={points} onChange={(event) => edit('points', setPoints)(event.target.value)} />
          {fieldMessage('points')}
        </div>
        <div className="field">
          <label htmlFor="credit-reason">{t('admin.creditReason')}</label>
          <input {...inputProps('reason')} className="input-reason" value={reason} onChange={(event) => edit('reason', setReason)(event.target.value)} />
          {fieldMessage('reason')}
        </div>
        {formProblem && (
          <div className="error" role="alert">
            <p>{formProblem}</p>
          </div>
        )}
        {!pending && (
          <div className="actions">
            <button type="submit" disabled={finding || crediting}>
              {finding ? t('admin.finding') : crediting ? t('admin.crediting') : t('admin.continue')}
            </button>
          </div>
        )}
      </form>
      {pending && (
        <div className="confirm" role="group" aria-labelledby="credit-confirm-text">
          <p id="credit-confirm-text">
            {t('admin.confirmCredit', { points: pending.points, email: pending.user.email, id: pending.user.id, balance: pending.user.points, reason: pending.reason })}
          </p>
          <div className="actions">
            {/* confirm() shows its own failure in the form. */}
            <button type="button" onClick={() => void confirm()}>
              {t('admin.confirm')}
            </button>
            <button type="button" className="secondary" onClick={() => setPending(null)}>
              {t('admin.cancel')}
            </button>
          </div>
        </div>
      )}
      <StatusMessage message={done} className="admin-result" />
    </section>
  );
}
