import { ApolloProvider } from '@apollo/client/react';
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createApolloClient } from '../../apollo-client';
import { browseFrom, startFakePlazaServer, type FakePlazaServer } from '../../test-support/fake-plaza-server';
import { graphqlResponder, respond, type FakeOperation, type GraphqlCall, type Wire } from '../../test-support/graphql-responder';
import { CreditPointsMutation, UserByEmailQuery } from './admin-operations';
import { CreditPointsForm } from './CreditPointsForm';
import type { AdminUser } from './find-user';

let server: FakePlazaServer;
let calls: GraphqlCall[];

beforeAll(async () => {
  server = await startFakePlazaServer();
  browseFrom(server.origin);
});

afterAll(() => server.close());

afterEach(() => cleanup());

const buyer: Wire<AdminUser> = { __typename: 'Viewer', id: 'u-1', email: 'buyer@example.com', roles: ['DEVELOPER', 'USER'], configuredRoles: [], points: 50 };
const byEmail = respond(UserByEmailQuery, ({ email }) => ({ data: { userByEmail: email === 'buyer@example.com' ? buyer : null } }));

function renderCredit(answers: FakeOperation[]) {
  calls = [];
  server.respondWith(graphqlResponder([byEmail, ...answers], calls));
  render(
    <ApolloProvider client={createApolloClient()}>
      <CreditPointsForm />
    </ApolloProvider>,
  );
}

function fill(email: string, points: string, reason: string) {
  fireEvent.change(screen.getByLabelText('User’s e-mail'), { target: { value: email } });
  fireEvent.change(screen.getByLabelText('Points'), { target: { value: points } });
  fireEvent.change(screen.getByLabelText('Reason'), { target: { value: reason } });
  fireEvent.click(screen.getByRole('button', { name: 'Continue' }));
}

const problemOf = (label: string) => {
  const ids = screen.getByLabelText(label).getAttribute('aria-describedby');
  return ids ? document.getElementById(ids)?.textContent : undefined;
};
const credits = () => calls.filter((call) => call.operationName === 'CreditPoints');

describe('Credit points form', () => {
  it('finds the user by e-mail, shows who will be credited before sending, then clears itself so a second click credits nothing', async () => {
    renderCredit([respond(CreditPointsMutation, { data: { creditPoints: { __typename: 'PointsBalance', userId: 'u-1', points: 150 } } })]);
    fill(' buyer@example.com ', '100', 'goodwill');

    const confirmation = await screen.findByRole('group');
    expect(confirmation.textContent).toContain('Credit 100 points to buyer@example.com (user id u-1, balance now 50 points)? Reason: goodwill');
    expect(credits()).toHaveLength(0);

    fireEvent.click(screen.getByRole('button', { name: 'Confirm credit' }));
    expect((await screen.findByRole('status')).textContent).toBe('Credited 100 points to buyer@example.com. New balance: 150 points.');
    expect(credits().map((call) => call.variables)).toEqual([{ userId: 'u-1', points: 100, reason: 'goodwill' }]);
    expect((screen.getByLabelText('User’s e-mail') as HTMLInputElement).value).toBe('');
    expect((screen.getByLabelText('Points') as HTMLInputElement).value).toBe('');
    expect((screen.getByLabelText('Reason') as HTMLInputElement).value).toBe('');

    // Pressing again asks for the fields instead of crediting the same person twice.
    fireEvent.click(screen.getByRole('button', { name: 'Continue' }));
    expect(problemOf('User’s e-mail')).toBe('Enter the e-mail address the user signs in with.');
    expect(credits()).toHaveLength(1);
  });

  it('says plainly when no account signs in with the address, and credits nothing', async () => {
    renderCredit([]);
    fill('nobody@example.com', '5', 'goodwill');

    await waitFor(() => expect(screen.getByLabelText('User’s e-mail').getAttribute('aria-invalid')).toBe('true'));
    expect(problemOf('User’s e-mail')).toBe('No account signs in with nobody@example.com. The user must sign in to Plaza once first.');
    expect(screen.queryByRole('button', { name: 'Confirm credit' })).toBeNull();
    expect(credits()).toHaveLength(0);
  });

  it('refuses zero, negative and fractional points before asking anything, one message per problem', async () => {
    renderCredit([]);
    for (const points of ['0', '-5', '2.5']) {
      fill('', points, ' ');
      expect(screen.getByLabelText('Points').getAttribute('aria-invalid')).toBe('true');
      expect(problemOf('Points')).toBe('Enter a whole number of points greater than 0.');
      expect(problemOf('User’s e-mail')).toBe('Enter the e-mail address the user signs in with.');
      expect(problemOf('Reason')).toBe('Enter a reason; it is kept with the credit.');
      // Three problems, three messages: none repeated in a banner.
      expect(document.querySelectorAll('.field-problem')).toHaveLength(3);
      expect(screen.queryByRole('alert')).toBeNull();
    }
    // The server records requests in order: the first it hears of is the valid attempt that follows.
    fill('buyer@example.com', '1', 'goodwill');
    await screen.findByRole('group');
    expect(calls).toEqual([{ operationName: 'UserByEmail', variables: { email: 'buyer@example.com' } }]);
  });

  it("attaches the server's error to the field it names", async () => {
    // The server's own answer past its maximum (CreditPointsArgs: 1..10,000,000).
    const tooMany = 'points must be a whole number between 1 and 10,000,000';
    renderCredit([respond(CreditPointsMutation, { data: null, errors: [{ message: tooMany, extensions: { code: 'BAD_USER_INPUT', field: 'points' } }] })]);
    fill('buyer@example.com', '20000000', 'goodwill');
    fireEvent.click(await screen.findByRole('button', { name: 'Confirm credit' }));

    await waitFor(() => expect(screen.getByLabelText('Points').getAttribute('aria-invalid')).toBe('true'));
    expect(problemOf('Points')).toBe(tooMany);
    expect(screen.queryByRole('status')).toBeNull();
  });

  it('says on the e-mail field when the account is gone by the time the credit is confirmed', async () => {
    // What MarketplaceService.creditPoints answers for an unknown user id: NOT_FOUND on userId, not bad input.
    renderCredit([respond(CreditPointsMutation, { data: null, errors: [{ message: 'No user u-1', extensions: { code: 'NOT_FOUND', field: 'userId' } }] })]);
    fill('buyer@example.com', '5', 'goodwill');
    fireEvent.click(await screen.findByRole('button', { name: 'Confirm credit' }));

    await waitFor(() => expect(screen.getByLabelText('User’s e-mail').getAttribute('aria-invalid')).toBe('true'));
    expect(problemOf('User’s e-mail')).toBe('No user u-1');
    expect(screen.queryByRole('status')).toBeNull();
    expect(screen.queryByRole('alert')).toBeNull();
  });
});
