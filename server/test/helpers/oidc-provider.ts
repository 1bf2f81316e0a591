import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll } from 'vitest';
// oidc-provider ships no type declarations; the test needs only its constructor and request handler.
// @ts-expect-error TS7016
import { Provider } from 'oidc-provider';

export interface TestAccount {
  sub: string;
  email: string;
  email_verified: boolean;
}

export interface TestOidcClient {
  client_id: string;
  client_secret: string;
  redirect_uris: string[];
}

/**
 * A real OpenID provider (oidc-provider) on a free port of 127.0.0.1 over plain http, with its
 * built-in development login and consent forms; stopped after the test file.
 */
export async function startTestOidcProvider(client: TestOidcClient, accounts: TestAccount[]): Promise<{ issuer: string }> {
  // The issuer is part of the provider's identity, so the port must be known before it is built.
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const provider = new Provider(issuer, {
    clients: [{ ...client, grant_types: ['authorization_code'], response_types: ['code'] }],
    claims: { openid: ['sub'], email: ['email', 'email_verified'] },
    features: { devInteractions: { enabled: true } },
    async findAccount(_ctx: unknown, id: string) {
      const account = accounts.find((a) => a.sub === id);
      return account && { accountId: id, claims: async () => account };
    },
  });
  server.on('request', provider.callback());
  return { issuer };
}
