import { buildSchema } from 'type-graphql';
import { DateTimeResolver } from 'graphql-scalars';
import { lexicographicSortSchema, printSchema, type GraphQLSchema } from 'graphql';
import type { PubSub } from 'type-graphql';
import { AppResolver } from '../modules/apps/app.resolver.js';
import { IdentityResolver } from '../modules/identity/identity.resolver.js';
import { ReviewResolver } from '../modules/review/review.resolver.js';
import { SecretsResolver } from '../modules/secrets/secrets.resolver.js';
import { DeliveryAttemptResolver, WebhookResolver } from '../modules/webhooks/webhook.resolver.js';
import { AppEarningsResolver, InstallationResolver, MarketplaceResolver } from '../modules/marketplace/marketplace.resolver.js';
import { authChecker } from '../platform/auth/auth-checker.js';

export const RESOLVERS = [IdentityResolver, AppResolver, ReviewResolver, SecretsResolver, WebhookResolver, DeliveryAttemptResolver, MarketplaceResolver, InstallationResolver, AppEarningsResolver] as const;

/** A PubSub for building the schema where nothing is published (schema emission). */
const inertPubSub: PubSub = { publish: () => undefined, subscribe: () => ({ [Symbol.asyncIterator]: () => ({ next: async () => ({ done: true, value: undefined }) }) }) };

export function buildPlazaSchema(pubSub: PubSub = inertPubSub): Promise<GraphQLSchema> {
  return buildSchema({
    resolvers: RESOLVERS as unknown as [Function, ...Function[]],
    authChecker,
    authMode: 'error',
    pubSub,
    scalarsMap: [{ type: Date, scalar: DateTimeResolver }],
    // skipMissingProperties off: an explicit null must meet the rules too (type-graphql skips nulls by default).
    validate: { forbidUnknownValues: false, stopAtFirstError: true, skipMissingProperties: false },
  });
}

/** The text checked in as schema.graphql; sorted so diffs show real changes only. */
export function printPlazaSchema(schema: GraphQLSchema): string {
  return `# Emitted from the server's resolvers by \`pnpm schema\`; do not edit by hand.\n\n${printSchema(lexicographicSortSchema(schema))}\n`;
}
