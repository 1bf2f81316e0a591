import { ApolloProvider } from '@apollo/client/react';
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createApolloClient } from '../../apollo-client';
import { browseFrom, startFakePlazaServer, type FakePlazaServer } from '../../test-support/fake-plaza-server';
import { graphqlResponder, respond, type FakeGraphqlError, type FakeOperation, type GraphqlCall } from '../../test-support/graphql-responder';
import { RefundPurchaseMutation } from './admin-operations';
import { RefundForm } from './RefundForm';

let server: FakePlazaServer;
let calls: GraphqlCall[];

beforeAll(async () => {
  server = await startFakePlazaServer();
  browseFrom(server.origin);
});

afterAll(() => server.close());

afterEach(() => cleanup());

function renderRefund(answers: FakeOperation[]) {
  calls = [];
  server.respondWith(graphqlResponder(answers, calls));
  render(
    <ApolloProvider client={createApolloClient()}>
      <RefundForm />
    </ApolloProvider>,
  );
}

function refund(purchaseId: string, reason = '') {
  fireEvent.change(screen.getByLabelText('Purchase id'), { target: { value: purchaseId } });
  fireEvent.change(screen.getByLabelText('Reason (optional)'), { target: { value: reason } });
  fireEvent.click(screen.getByRole('button', { name: 'Refund' }));
}

const refusal = (message: string, extensions: FakeGraphqlError['extensions']) => [respond(RefundPurchaseMutation, { data: null, errors: [{ message, extensions }] })];

describe('Refund form', () => {
  it('says clearly that a purchase was already refunded', async () => {
    // As MarketplaceErrors.alreadyRefunded answers.
    renderRefund(refusal('Purchase p-1 was already refunded', { code: 'CONFLICT', reason: 'ALREADY_REFUNDED' }));
    refund('p-1', 'duplicate');

    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('This purchase was already refunded.');
    expect(alert.textContent).toContain('Purchase p-1 was already refunded');
    expect(calls.map((call) => call.variables)).toEqual([{ purchaseId: 'p-1', reason: 'duplicate' }]);
  });

  it('says clearly that there is no such purchase', async () => {
    // As MarketplaceService.refundPurchase answers: NOT_FOUND, naming the purchaseId field.
    renderRefund(refusal('No purchase p-404', { code: 'NOT_FOUND', field: 'purchaseId' }));
    refund('p-404');

    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('There is no purchase with this id.');
    expect(calls.map((call) => call.variables)).toEqual([{ purchaseId: 'p-404', reason: null }]);
  });

  it('attaches an error that names a field to that field', async () => {
    // As MarketplaceService.refund answers a reason with a control character in it.
    renderRefund(refusal('reason must not contain control characters', { code: 'BAD_USER_INPUT', field: 'reason' }));
    refund('p-1', 'ring \u0007');

    await waitFor(() => expect(screen.getByLabelText('Reason (optional)').getAttribute('aria-invalid')).toBe('true'));
    const describedBy = screen.getByLabelText('Reason (optional)').getAttribute('aria-describedby') ?? '';
    expect(document.getElementById(describedBy)?.textContent).toBe('reason must not contain control characters');
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('shows the refunded purchase', async () => {
    renderRefund([
      respond(RefundPurchaseMutation, {
        data: {
          refundPurchase: {
            __typename: 'Purchase',
            purchaseId: 'p-1',
            appId: 'app-1',
            userId: 'u-1',
            pricePoints: 50,
            amountVnd: 50000,
            status: 'REFUNDED',
            refundedAt: '2026-11-22T08:00:00.000Z',
            refundReason: null,
          },
        },
      }),
    ]);
    refund('p-1');

    const status = await screen.findByRole('status');
    expect(status.textContent).toContain('Refunded purchase p-1.');
    expect(status.textContent).toContain('REFUNDED');
  });
});
