import { ApolloProvider } from '@apollo/client/react';
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createApolloClient } from '../../apollo-client';
import { browseFrom, startFakePlazaServer, type FakePlazaServer } from '../../test-support/fake-plaza-server';
import { graphqlResponder, respond, type FakeOperation, type GraphqlCall, type Wire } from '../../test-support/graphql-responder';
import { GrantRoleMutation, RevokeRoleMutation, UserByEmailQuery } from './admin-operations';
import type { AdminUser } from './find-user';
import { UserRoles } from './UserRoles';

let server: FakePlazaServer;
let calls: GraphqlCall[];

beforeAll(async () => {
  server = await startFakePlazaServer();
  browseFrom(server.origin);
});

afterAll(() => server.close());

afterEach(() => cleanup());

const account = (email: string, roles: string[], configuredRoles: string[] = []): Wire<AdminUser> => ({
  __typename: 'Viewer',
  id: `u-${email.split('@')[0]}`,
  email,
  roles: ['DEVELOPER', 'USER', ...roles],
  configuredRoles,
  points: 0,
});

function renderRoles(answers: FakeOperation[]) {
  calls = [];
  server.respondWith(graphqlResponder(answers, calls));
  render(
    <ApolloProvider client={createApolloClient()}>
      <UserRoles />
    </ApolloProvider>,
  );
}

async function find(email: string) {
  fireEvent.change(screen.getByLabelText('User’s e-mail'), { target: { value: email } });
  fireEvent.click(screen.getByRole('button', { name: 'Find user' }));
  return screen.findByRole('table', { name: `Roles of ${email}` });
}

const row = (table: HTMLElement, role: string) => within(table).getByRole('row', { name: new RegExp(`^${role}`) });

describe('Users and roles', () => {
  it('grants and revokes REVIEWER for a user found by e-mail, showing the roles the server answers', async () => {
    let roles: string[] = [];
    renderRoles([
      respond(UserByEmailQuery, () => ({ data: { userByEmail: account('carol@example.com', roles) } })),
      respond(GrantRoleMutation, (variables) => ((roles = [variables.role]), { data: { grantRole: account('carol@example.com', roles) } })),
      respond(RevokeRoleMutation, () => ((roles = []), { data: { revokeRole: account('carol@example.com', roles) } })),
    ]);
    const table = await find('carol@example.com');
    expect(screen.getByText('carol@example.com (user id u-carol), balance 0 points')).toBeTruthy();
    expect(within(row(table, 'Reviewer')).getByText('Does not have it')).toBeTruthy();

    fireEvent.click(screen.getByRole('button', { name: 'Grant Reviewer' }));
    expect((await screen.findByRole('status')).textContent).toBe('carol@example.com now has the Reviewer role, from their next request.');
    expect(within(row(table, 'Reviewer')).getByText('Has it')).toBeTruthy();

    fireEvent.click(screen.getByRole('button', { name: 'Revoke Reviewer' }));
    await screen.findByRole('button', { name: 'Grant Reviewer' });
    expect(screen.getByRole('status').textContent).toBe('carol@example.com no longer has the Reviewer role. Their open live connections were closed and reconnect without it.');
    expect(calls.filter((call) => call.operationName !== 'UserByEmail')).toEqual([
      { operationName: 'GrantRole', variables: { userId: 'u-carol', role: 'REVIEWER' } },
      { operationName: 'RevokeRole', variables: { userId: 'u-carol', role: 'REVIEWER' } },
    ]);
  });

  it('shows roles from configuration, and REVIEWER of an admin, as not revocable, saying why', async () => {
    renderRoles([respond(UserByEmailQuery, { data: { userByEmail: account('boss@example.com', ['REVIEWER', 'ADMIN'], ['ADMIN']) } })]);
    const table = await find('boss@example.com');

    expect(within(row(table, 'Admin')).getByText('Given by PLATFORM_ADMIN_EMAILS, so it cannot be revoked here: remove the address there and restart Plaza.')).toBeTruthy();
    expect(within(row(table, 'Reviewer')).getByText('Comes with Admin: revoke Admin to take it away.')).toBeTruthy();
    expect(within(table).queryAllByRole('button')).toHaveLength(0);
  });

  it("says when no account has the address, and shows the server's refusal as it words it", async () => {
    renderRoles([
      respond(UserByEmailQuery, ({ email }) => ({ data: { userByEmail: email === 'me@example.com' ? account('me@example.com', ['REVIEWER', 'ADMIN']) : null } })),
      // As IdentityService.revokeRole answers.
      respond(RevokeRoleMutation, {
        data: null,
        errors: [{ message: 'You cannot revoke your own ADMIN role; another admin can', extensions: { code: 'CONFLICT', reason: 'OWN_ADMIN_ROLE' } }],
      }),
    ]);
    fireEvent.change(screen.getByLabelText('User’s e-mail'), { target: { value: 'ghost@example.com' } });
    fireEvent.click(screen.getByRole('button', { name: 'Find user' }));
    expect((await screen.findByText(/^No account signs in with ghost@example.com/)).id).toBe('roles-email-problem');

    const table = await find('me@example.com');
    fireEvent.click(within(table).getByRole('button', { name: 'Revoke Admin' }));
    expect((await screen.findByRole('alert')).textContent).toBe('You cannot revoke your own ADMIN role; another admin can');
    expect(within(row(table, 'Admin')).getByText('Has it')).toBeTruthy();
  });
});
