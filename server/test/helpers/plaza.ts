import { afterAll, expect } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { findFreePort } from '../../src/platform/embedded-postgres.js';
import { startPlaza, type RunningPlaza } from '../../src/app/plaza.js';
import { createTestDatabase } from './database.js';
import { GraphQLTestClient } from './graphql-client.js';

export const TEST_ENCRYPTION_KEY = Buffer.alloc(32, 7).toString('base64');
export const REVIEWER_EMAIL = 'reviewer@plaza.test';
export const ADMIN_EMAIL = 'admin@plaza.test';

// Registered when a test file imports this helper, so every Plaza it starts is stopped after the file.
const running: RunningPlaza[] = [];
afterAll(async () => {
  await Promise.all(running.splice(0).map((plaza) => plaza.stop()));
});

export interface TestPlaza extends RunningPlaza {
  /** A GraphQL client signed in as this e-mail through the development provider. */
  signIn(email: string): Promise<GraphQLTestClient>;
  anonymous(): GraphQLTestClient;
  /** Resolves once this process holds `count` live subscriptions (the graphql-ws handshake is done). */
  waitForSubscriptions(count: number): Promise<void>;
}

/**
 * A real Plaza on a real PostgreSQL database of its own, listening on a free port; stopped after
 * the test file. `env` overrides configuration exactly as the environment would.
 */
export async function startTestPlaza(env: Record<string, string> = {}): Promise<TestPlaza> {
  const port = await findFreePort();
  const config = loadConfig({
    NODE_ENV: 'test',
    PORT: String(port),
    DATABASE_URL: await createTestDatabase(),
    SECRET_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
    PLATFORM_REVIEWER_EMAILS: REVIEWER_EMAIL,
    PLATFORM_ADMIN_EMAILS: ADMIN_EMAIL,
    WEB_DIST_DIR: '/nonexistent',
    ...env,
  });
  const plaza = await startPlaza(config);
  running.push(plaza);
  return {
    ...plaza,
    anonymous: () => new GraphQLTestClient(plaza.url),
    signIn: async (email) => GraphQLTestClient.signIn(plaza.url, email),
    waitForSubscriptions: async (count) => {
      await expect
        .poll(() => plaza.services.pubSub.subscriptionCount, { timeout: 5000, interval: 20, message: `subscriptions live of the ${count} awaited` })
        .toBeGreaterThanOrEqual(count);
    },
  };
}
