import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse, print, visit } from 'graphql';
import { REPO_ROOT } from '../src/config.js';
import { connectPlazaDatabase } from '../src/app/entities.js';
import { buildPlazaSchema, printPlazaSchema } from '../src/app/schema.js';
import { createTestDatabase } from './helpers/database.js';

/** The SDL without descriptions: graphql-js prints described arguments one per line, and the names below are written on one. */
const withoutDescriptions = (sdl: string) =>
  print(visit(parse(sdl), { enter: (node) => ('description' in node && node.description ? { ...node, description: undefined } : undefined) }));

describe('schema.graphql', () => {
  it('is exactly what the resolvers emit (run `pnpm schema` after changing the API)', async () => {
    const checkedIn = readFileSync(path.join(REPO_ROOT, 'schema.graphql'), 'utf8');
    expect(printPlazaSchema(await buildPlazaSchema())).toBe(checkedIn);
  });

  it('keeps every name the API contract fixes', () => {
    const schema = withoutDescriptions(readFileSync(path.join(REPO_ROOT, 'schema.graphql'), 'utf8'));
    for (const name of [
      'me: Viewer',
      'categories: [Category!]!',
      'app(id: ID!): App',
      'myApps: [App!]!',
      'storeApps(',
      'reviewQueue(',
      'notifications(',
      'submitApp(input: SubmitAppInput!): App!',
      'updateApp(id: ID!, input: UpdateAppInput!): App!',
      'decideReview(input: ReviewDecisionInput!): ReviewDecision!',
      'revealClientSecret(appId: ID!): ClientSecret!',
      'rotateClientSecret(appId: ID!, overlapHours: Int): ClientSecret!',
      'finishClientSecretRotation(appId: ID!): ClientSecret!',
      'previousValidUntil: DateTime',
      'createApiToken(input: CreateApiTokenInput!): CreatedApiToken!',
      'revokeApiToken(id: ID!): Boolean!',
      'notificationAdded: Notification!',
      'enum AppStatus',
      'enum ReviewOutcome',
      'enum RejectionReason',
      'enum Pricing',
      'scalar DateTime',
    ]) {
      expect(schema, name).toContain(name);
    }
  });
});

describe('migrations', () => {
  it('build exactly the schema the entities describe', async () => {
    const dataSource = await connectPlazaDatabase(await createTestDatabase());
    try {
      const pending = await dataSource.driver.createSchemaBuilder().log();
      expect(pending.upQueries.map((q) => q.query)).toEqual([]);
    } finally {
      await dataSource.destroy();
    }
  });
});
