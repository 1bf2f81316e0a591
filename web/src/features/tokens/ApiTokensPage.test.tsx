import { ApolloProvider } from '@apollo/client/react';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createApolloClient } from '../../apollo-client';
import { LocaleProvider } from '../../i18n/i18n';
import { browseFrom, startFakePlazaServer, type FakePlazaServer } from '../../test-support/fake-plaza-server';
import { graphqlResponder, respond, type GraphqlCall } from '../../test-support/graphql-responder';
import { ApiTokensQuery, CreateApiTokenMutation } from './api-tokens';
import { ApiTokensPage } from './ApiTokensPage';

let server: FakePlazaServer;
const calls: GraphqlCall[] = [];

beforeAll(async () => {
  server = await startFakePlazaServer();
  browseFrom(server.origin);
});

afterAll(() => server.close());

afterEach(() => cleanup());

// As IdentityService refuses the 51st live token of an account.
const TOO_MANY = {
  message: 'You already have 50 live API tokens; revoke one you no longer use first',
  extensions: { code: 'CONFLICT', reason: 'TOO_MANY_TOKENS' },
} as const;

describe('API tokens page', () => {
  it.each([
    ['en', 'Token name', 'Create token', 'You already have 50 live API tokens; revoke one you no longer use first'],
    ['vi', 'Tên mã', 'Tạo mã', 'Bạn đã có 50 mã API còn hiệu lực, mức tối đa cho một tài khoản; hãy thu hồi một mã không còn dùng trước.'],
  ] as const)('says in plain words (%s) why a 51st live token is refused', async (locale, nameLabel, create, expected) => {
    server.respondWith(
      graphqlResponder(
        [
          respond(ApiTokensQuery, {
            data: { myApiTokens: { __typename: 'ApiTokenConnection', edges: [], pageInfo: { __typename: 'PageInfo', hasNextPage: false, endCursor: null } } },
          }),
          respond(CreateApiTokenMutation, { data: null, errors: [TOO_MANY] }),
        ],
        calls,
      ),
    );
    render(
      <ApolloProvider client={createApolloClient()}>
        <LocaleProvider locale={locale}>
          <ApiTokensPage />
        </LocaleProvider>
      </ApolloProvider>,
    );
    fireEvent.change(screen.getByLabelText(nameLabel), { target: { value: 'CI' } });
    fireEvent.click(screen.getByRole('button', { name: create }));
    expect((await screen.findByRole('alert')).textContent).toBe(expected);
  });
});
