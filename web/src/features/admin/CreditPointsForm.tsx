import { useMutation } from '@apollo/client/react';
import { useState, type FormEvent } from 'react';
import { useT } from '../../i18n/i18n';
import { serverProblem, type ServerProblem } from '../../ui/graphql-errors';
import { CreditPointsMutation } from './admin-operations';
import { problemProps } from './field-problem';

type CreditField = 'userId' | 'points' | 'reason';

/** Checks the form can make before asking the server, worded as a problem on the field they concern. */
function localProblem(userId: string, points: string, reason: string): ServerProblem | null {
  if (userId.trim() === '') return { message: 'required', field: 'userId' };
  if (!/^-?\d+$/.test(points.trim())) return { message: 'wholeNumber', field: 'points' };
  if (reason.trim() === '') return { message: 'required', field: 'reason' };
  return null;
}

export function CreditPointsForm() {
  const t = useT();
  const [credit, { loading }] = useMutation(CreditPointsMutation);
  const [userId, setUserId] = useState('');
  const [points, setPoints] = useState('');
  const [reason, setReason] = useState('');
  const [problem, setProblem] = useState<ServerProblem | null>(null);
  const [balance, setBalance] = useState<{ userId: string; points: number } | null>(null);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBalance(null);
    const local = localProblem(userId, points, reason);
    if (local) {
      setProblem({ ...local, message: local.message === 'wholeNumber' ? t('admin.wholeNumber') : t('admin.required') });
      return;
    }
    setProblem(null);
    try {
      const result = await credit({ variables: { userId: userId.trim(), points: Number(points.trim()), reason: reason.trim() } });
      if (result.data) setBalance(result.data.creditPoints);
    } catch (error) {
      setProblem(serverProblem(error));
    }
  }

  const fieldMessage = (field: CreditField) =>
    problem?.field === field ? (
      <p id={`credit-${field}-problem`} className="field-problem">
        {problem.message}
      </p>
    ) : null;
  const known = problem?.field === 'userId' || problem?.field === 'points' || problem?.field === 'reason';

  return (
    <section className="card" aria-labelledby="admin-credit-heading">
      <h2 id="admin-credit-heading">{t('admin.creditHeading')}</h2>
      <form onSubmit={submit} noValidate>
        <div className="field">
          <label htmlFor="credit-userId">{t('admin.userId')}</label>
          <input {...problemProps('credit-userId', 'userId', problem)} value={userId} onChange={(event) => setUserId(event.target.value)} autoComplete="off" />
          {fieldMessage('userId')}
        </div>
        <div className="field">
          <label htmlFor="credit-points">{t('admin.points')}</label>
          <input {...problemProps('credit-points', 'points', problem)} inputMode="numeric" value={points} onChange={(event) => setPoints(event.target.value)} />
          {fieldMessage('points')}
        </div>
        <div className="field">
          <label htmlFor="credit-reason">{t('admin.creditReason')}</label>
          <input {...problemProps('credit-reason', 'reason', problem)} value={reason} onChange={(event) => setReason(event.target.value)} />
          {fieldMessage('reason')}
        </div>
        {problem && !known && (
          <div className="error" role="alert">
            <p>{problem.message}</p>
          </div>
        )}
        <div className="actions">
          <button type="submit" disabled={loading}>
            {loading ? t('admin.crediting') : t('admin.credit')}
          </button>
        </div>
      </form>
      {balance && (
        <p role="status" className="admin-result">
          <strong>{t('admin.newBalance', { userId: balance.userId, points: balance.points })}</strong>
        </p>
      )}
    </section>
  );
}
