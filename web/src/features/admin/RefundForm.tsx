import { useMutation } from '@apollo/client/react';
import type { ResultOf } from '@graphql-typed-document-node/core';
import { useRef, useState, type FormEvent } from 'react';
import { type Translate, useFormat, useT } from '../../i18n/i18n';
import { serverProblem, type ServerProblem } from '../../ui/graphql-errors';
import { RefundPurchaseMutation } from './admin-operations';
import { BuyerPurchases } from './BuyerPurchases';
import { problemProps } from './field-problem';

type RefundedPurchase = ResultOf<typeof RefundPurchaseMutation>['refundPurchase'];

/** Known refusals get a sentence of their own; the server's message follows for the details. */
function refusalHeadline(t: Translate, problem: ServerProblem): string | null {
  if (problem.reason === 'ALREADY_REFUNDED') return t('admin.alreadyRefunded');
  if (problem.code === 'NOT_FOUND' || problem.reason === 'NOT_FOUND') return t('admin.purchaseNotFound');
  return null;
}

export function RefundForm() {
  const t = useT();
  const format = useFormat();
  const [refund, { loading }] = useMutation(RefundPurchaseMutation);
  const [purchaseId, setPurchaseId] = useState('');
  const [reason, setReason] = useState('');
  const [missingId, setMissingId] = useState(false);
  const [problem, setProblem] = useState<ServerProblem | null>(null);
  const [refunded, setRefunded] = useState<RefundedPurchase | null>(null);
  const idInput = useRef<HTMLInputElement>(null);

  // The admin goes on with the reason and the Refund button, from the field now holding the chosen id.
  function choose(chosen: string) {
    setPurchaseId(chosen);
    setMissingId(false);
    setProblem(null);
    setRefunded(null);
    idInput.current?.focus();
  }

  async function submit(event: FormEvent) {
    event.preventDefault();
    setProblem(null);
    setRefunded(null);
    setMissingId(purchaseId.trim() === '');
    if (purchaseId.trim() === '') return;
    try {
      const result = await refund({ variables: { purchaseId: purchaseId.trim(), reason: reason.trim() || null } });
      if (result.data) setRefunded(result.data.refundPurchase);
    } catch (error) {
      setProblem(serverProblem(error));
    }
  }

  const headline = problem ? refusalHeadline(t, problem) : null;
  // A known refusal keeps its own sentence in the alert even though the server names the field (NOT_FOUND on purchaseId).
  const fieldProblem = headline ? null : problem;
  const idProps = problemProps('refund-purchase-id', 'purchaseId', fieldProblem);
  const reasonProps = problemProps('refund-reason', 'reason', fieldProblem);
  const onAField = fieldProblem?.field === 'purchaseId' || fieldProblem?.field === 'reason';

  return (
    <section className="card" aria-labelledby="admin-refund-heading">
      <h2 id="admin-refund-heading">{t('admin.refundHeading')}</h2>
      <BuyerPurchases onChoose={choose} />
      {/* submit() shows its own failure in the form. */}
      <form onSubmit={(event) => void submit(event)} noValidate>
        <div className="field">
          <label htmlFor={idProps.id}>{t('admin.purchaseId')}</label>
          <input
            {...idProps}
            ref={idInput}
            className="input-id"
            aria-invalid={idProps['aria-invalid'] ?? (missingId || undefined)}
            aria-describedby={idProps['aria-describedby'] ?? (missingId ? 'refund-purchase-id-missing' : undefined)}
            value={purchaseId}
            onChange={(event) => setPurchaseId(event.target.value)}
            autoComplete="off"
          />
          {missingId && (
            <p id="refund-purchase-id-missing" className="field-problem">
              {t('admin.purchaseIdRequired')}
            </p>
          )}
          {fieldProblem?.field === 'purchaseId' && (
            <p id="refund-purchase-id-problem" className="field-problem">
              {fieldProblem.message}
            </p>
          )}
        </div>
        <div className="field">
          <label htmlFor={reasonProps.id}>{t('admin.refundReason')}</label>
          <input {...reasonProps} className="input-reason" value={reason} onChange={(event) => setReason(event.target.value)} />
          {fieldProblem?.field === 'reason' && (
            <p id="refund-reason-problem" className="field-problem">
              {fieldProblem.message}
            </p>
          )}
        </div>
        {problem && !onAField && (
          <div className="error" role="alert">
            {headline && (
              <p>
                <strong>{headline}</strong>
              </p>
            )}
            <p>{problem.message}</p>
          </div>
        )}
        <div className="actions">
          <button type="submit" disabled={loading}>
            {loading ? t('admin.refunding') : t('admin.refund')}
          </button>
        </div>
      </form>
      {refunded && (
        <div role="status" className="admin-result">
          <p>
            <strong>{t('admin.refunded', { purchaseId: refunded.purchaseId })}</strong>
          </p>
          <dl className="facts">
            <dt>{t('admin.appId')}</dt>
            <dd className="break-anywhere id-text">{refunded.appId}</dd>
            <dt>{t('admin.userId')}</dt>
            <dd className="break-anywhere id-text">{refunded.userId}</dd>
            <dt>{t('admin.points')}</dt>
            <dd>{refunded.pricePoints}</dd>
            <dt>{t('admin.status')}</dt>
            <dd>{refunded.status}</dd>
            {refunded.refundedAt && (
              <>
                <dt>{t('admin.refundedAt')}</dt>
                <dd>
                  <time dateTime={refunded.refundedAt}>{format.dateTime(refunded.refundedAt)}</time>
                </dd>
              </>
            )}
          </dl>
        </div>
      )}
    </section>
  );
}
