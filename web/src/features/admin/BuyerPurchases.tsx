import { useApolloClient } from '@apollo/client/react';
import type { ResultOf } from '@graphql-typed-document-node/core';
import { useState, type FormEvent } from 'react';
import { codeLabel, useFormat, useT } from '../../i18n/i18n';
import { storeAppPath } from '../../routes';
import { serverProblem, type ServerProblem } from '../../ui/graphql-errors';
import { Link } from '../../ui/Link';
import { BUYER_PURCHASES_LIMIT, PurchasesByBuyerEmailQuery } from './admin-operations';
import { problemProps } from './field-problem';

type Found = { email: string; result: ResultOf<typeof PurchasesByBuyerEmailQuery>['purchasesByBuyerEmail'] };

/**
 * A buyer writes "refund my purchase" from their address and does not know its id: the admin finds it by that
 * address, and "Refund…" puts its id into the refund form (`onChoose`).
 */
export function BuyerPurchases({ onChoose }: { onChoose: (purchaseId: string) => void }) {
  const t = useT();
  const format = useFormat();
  const client = useApolloClient();
  const [email, setEmail] = useState('');
  const [missing, setMissing] = useState(false);
  const [loading, setLoading] = useState(false);
  const [problem, setProblem] = useState<ServerProblem | null>(null);
  const [found, setFound] = useState<Found | null>(null);

  async function search(event: FormEvent) {
    event.preventDefault();
    const address = email.trim();
    setProblem(null);
    setFound(null);
    setMissing(address === '');
    if (address === '') return;
    setLoading(true);
    try {
      // Always asked anew: a purchase refunded a moment ago must not still offer Refund.
      const { data } = await client.query({ query: PurchasesByBuyerEmailQuery, variables: { email: address, first: BUYER_PURCHASES_LIMIT }, fetchPolicy: 'network-only' });
      if (data) setFound({ email: address, result: data.purchasesByBuyerEmail });
    } catch (error) {
      setProblem(serverProblem(error));
    } finally {
      setLoading(false);
    }
  }

  const emailProps = problemProps('buyer-purchases-email', 'email', problem);
  const emailMessage = missing ? t('admin.buyerEmailRequired') : problem?.field === 'email' ? problem.message : null;

  return (
    <div className="buyer-purchases">
      {/* search() shows its own failure in the form. */}
      <form onSubmit={(event) => void search(event)} noValidate role="search" aria-label={t('admin.findPurchases')}>
        <div className="field">
          <label htmlFor={emailProps.id}>{t('admin.buyerEmail')}</label>
          <input
            {...emailProps}
            className="input-email"
            type="email"
            aria-invalid={emailMessage ? true : undefined}
            aria-describedby={emailMessage ? 'buyer-purchases-email-problem' : undefined}
            value={email}
            onChange={(event) => setEmail(event.target.value)}
            autoComplete="off"
          />
          {emailMessage && (
            <p id="buyer-purchases-email-problem" className="field-problem">
              {emailMessage}
            </p>
          )}
        </div>
        {problem && problem.field !== 'email' && (
          <div className="error" role="alert">
            <p>{problem.message}</p>
          </div>
        )}
        <div className="actions">
          <button type="submit" className="secondary" disabled={loading}>
            {loading ? t('admin.finding') : t('admin.findPurchases')}
          </button>
        </div>
      </form>
      {/* A live region, not a status: the refund's own result below is the form's status. */}
      <div aria-live="polite">
        {found && found.result.edges.length === 0 && <p>{t('admin.noPurchases', { email: found.email })}</p>}
        {found && found.result.edges.length > 0 && <p>{t('admin.purchasesFound', { email: found.email, count: found.result.edges.length })}</p>}
      </div>
      {found && found.result.edges.length > 0 && (
        // Focusable, so keyboard users can scroll a table wider than the screen (axe: scrollable-region-focusable).
        <div className="table-scroll" tabIndex={0} role="region" aria-label={t('admin.purchasesOf', { email: found.email })}>
          <table>
            <caption className="visually-hidden">{t('admin.purchasesOf', { email: found.email })}</caption>
            <thead>
              <tr>
                <th scope="col">{t('admin.purchaseId')}</th>
                <th scope="col">{t('admin.app')}</th>
                <th scope="col">{t('admin.kind')}</th>
                <th scope="col">{t('admin.points')}</th>
                <th scope="col">{t('admin.status')}</th>
                <th scope="col">{t('admin.created')}</th>
                <th scope="col">
                  <span className="visually-hidden">{t('admin.refund')}</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {found.result.edges.map(({ node }) => (
                <tr key={node.purchaseId}>
                  <td className="id-text">{node.purchaseId}</td>
                  <td>
                    {/* The name people know it by, to its store page; the id beside it for support and the logs. */}
                    {node.app ? <Link href={storeAppPath(node.appId)}>{node.app.name}</Link> : null} <small className="id-text">{node.appId}</small>
                  </td>
                  <td>{codeLabel(t, 'admin.kind', node.kind)}</td>
                  <td>{format.number(node.pricePoints)}</td>
                  <td>{codeLabel(t, 'admin.purchaseStatus', node.status)}</td>
                  <td>
                    <time dateTime={node.createdAt}>{format.dateTime(node.createdAt)}</time>
                  </td>
                  <td>
                    {/* Only a paid purchase not yet refunded can be refunded; the server refuses the rest too. */}
                    {node.kind === 'PURCHASE' && node.status === 'COMPLETED' && (
                      <button type="button" className="secondary" onClick={() => onChoose(node.purchaseId)} aria-label={t('admin.chooseRefund', { purchaseId: node.purchaseId })}>
                        {t('admin.refundEllipsis')}
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {found?.result.pageInfo.hasNextPage && <p className="hint">{t('admin.morePurchases', { count: BUYER_PURCHASES_LIMIT })}</p>}
    </div>
  );
}
