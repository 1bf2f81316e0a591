import { ApolloProvider } from '@apollo/client/react';
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createApolloClient } from '../../apollo-client';
import { browseFrom, startFakePlazaServer, type FakePlazaServer } from '../../test-support/fake-plaza-server';
import { graphqlResponder, type GraphqlCall } from '../../test-support/graphql-responder';
import { CreditPointsForm } from './CreditPointsForm';

let server: FakePlazaServer;
let calls: GraphqlCall[];

beforeAll(async () => {
  server = await startFakePlazaServer();
  browseFrom(server.origin);
});

afterAll(() => server.close());

afterEach(() => cleanup());

function renderCredit(answers: Parameters<typeof graphqlResponder>[0]) {
  calls = [];
  server.respondWith(graphqlResponder(answers, calls));
  render(
    <ApolloProvider client={createApolloClient()}>
      <CreditPointsForm />
    </ApolloProvider>,
  );
}

function credit(userId: string, points: string, reason: string) {
  fireEvent.change(screen.getByLabelText('User id'), { target: { value: userId } });
  fireEvent.change(screen.getByLabelText('Points'), { target: { value: points } });
  fireEvent.change(screen.getByLabelText('Reason'), { target: { value: reason } });
  fireEvent.click(screen.getByRole('button', { name: 'Credit points' }));
}

describe('Credit points form', () => {
  it('shows the new balance', async () => {
    renderCredit({ CreditPoints: () => ({ data: { creditPoints: { __typename: 'PointsBalance', userId: 'u-1', points: 150 } } }) });
    credit('u-1', '100', 'goodwill');

    expect((await screen.findByRole('status')).textContent).toBe('New balance of u-1: 150 points');
    expect(calls[0].variables).toEqual({ userId: 'u-1', points: 100, reason: 'goodwill' });
  });

  it("attaches the server's error to the field it names", async () => {
    renderCredit({ CreditPoints: () => ({ data: null, errors: [{ message: 'No user u-404', extensions: { code: 'BAD_USER_INPUT', field: 'userId' } }] }) });
    credit('u-404', '5', 'goodwill');

    await waitFor(() => expect(screen.getByLabelText('User id').getAttribute('aria-invalid')).toBe('true'));
    expect(document.getElementById('credit-userId-problem')?.textContent).toBe('No user u-404');
  });

  it('asks for a whole number of points before sending', async () => {
    renderCredit({});
    credit('u-1', '2.5', 'goodwill');

    expect(screen.getByLabelText('Points').getAttribute('aria-invalid')).toBe('true');
    expect(screen.getByText('Enter a whole number of points.')).toBeTruthy();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(calls).toHaveLength(0);
  });
});
