import { buildSchema } from 'type-graphql';
import { DateTimeResolver } from 'graphql-scalars';
import { GraphQLScalarType, lexicographicSortSchema, printSchema, type GraphQLSchema } from 'graphql';
import type { PubSub } from 'type-graphql';
import { AppResolver } from '../modules/apps/index.js';
import { IdentityResolver } from '../modules/identity/index.js';
import { ReviewResolver, AppReviewFieldsResolver, AppDeveloperResolver } from '../modules/review/index.js';
import { SecretsResolver, AppSecretFieldsResolver } from '../modules/secrets/index.js';
import {
  AppEndpointsResolver,
  DeliveryAttemptResolver,
  DeliveryEndpointResolver,
  LocalForwardResolver,
  WebhookEndpointResolver,
  WebhookResolver,
} from '../modules/webhooks/index.js';
import { AppEarningsResolver, InstallationResolver, MarketplaceResolver, PurchaseResolver } from '../modules/marketplace/index.js';
import { InsightsResolver } from '../modules/insights/index.js';
import { authChecker } from '../platform/auth/auth-checker.js';
import { writeIsoTimestamp } from '../platform/timestamptz.js';
import { registerResolverContainer, ResolverContainer } from '../platform/resolver-container.js';
import type { Services } from './services.js';

export const RESOLVERS = [
  IdentityResolver,
  AppResolver,
  ReviewResolver,
  AppReviewFieldsResolver,
  AppDeveloperResolver,
  SecretsResolver,
  AppSecretFieldsResolver,
  WebhookResolver,
  DeliveryAttemptResolver,
  LocalForwardResolver,
  WebhookEndpointResolver,
  AppEndpointsResolver,
  DeliveryEndpointResolver,
  MarketplaceResolver,
  InstallationResolver,
  PurchaseResolver,
  AppEarningsResolver,
  InsightsResolver,
] as const;

/** A PubSub for building the schema where nothing is published (schema emission). */
const inertPubSub: PubSub = { publish: () => undefined, subscribe: () => ({ [Symbol.asyncIterator]: () => ({ next: async () => ({ done: true, value: undefined }) }) }) };

/** Each resolver made once with the services it names; one instance per class, as RESOLVERS lists them. */
export function resolverContainer(services: Services): ResolverContainer {
  const {
    identity,
    apps,
    review,
    preChecks,
    secrets,
    notifications,
    deliveryLog,
    deliveryRecovery,
    webhookEvents,
    webhookHealth,
    pubSub,
    marketplace,
    sessionTokens,
    localForwards,
    insights,
    webhookEndpoints,
  } = services;
  const endpointResolver = new WebhookEndpointResolver(webhookEndpoints, apps);
  return new ResolverContainer().add(
    new IdentityResolver(identity),
    new AppResolver(apps, identity),
    new ReviewResolver(review, notifications),
    new AppReviewFieldsResolver(review, preChecks, identity),
    new AppDeveloperResolver(review, apps),
    new SecretsResolver(secrets),
    new AppSecretFieldsResolver(secrets),
    new WebhookResolver(deliveryLog, deliveryRecovery, webhookEvents, apps, pubSub, marketplace, webhookHealth, webhookEndpoints),
    endpointResolver,
    new AppEndpointsResolver(endpointResolver),
    new DeliveryEndpointResolver(webhookEndpoints),
    new DeliveryAttemptResolver(),
    new LocalForwardResolver(localForwards, apps, pubSub, marketplace),
    new MarketplaceResolver(marketplace, identity, apps, sessionTokens),
    new InstallationResolver(apps),
    new PurchaseResolver(apps),
    new AppEarningsResolver(marketplace),
    new InsightsResolver(insights, apps),
  );
}

/**
 * graphql-scalars' DateTime (same name, description and input rules), answering each value as its ISO
 * text: its own serialize hands back the Date, which JSON.stringify then writes through toJSON, the slow
 * path, for every timestamp of an answer (a third of serialising a page of 20 deliveries).
 */
const DateTime = new GraphQLScalarType({
  ...DateTimeResolver.toConfig(),
  serialize: (value) => writeIsoTimestamp(DateTimeResolver.serialize(value) as Date),
});

/**
 * The schema, resolving with the process's services. Without services (schema emission) nothing is
 * resolved, so no container is needed: only the types are printed.
 */
export async function buildPlazaSchema(options: { pubSub?: PubSub; services?: Services } = {}): Promise<GraphQLSchema> {
  const container = options.services ? resolverContainer(options.services) : undefined;
  const schema = await buildSchema({
    // type-graphql's own type for a list of resolver classes is a non-empty array of Function.
    // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
    resolvers: RESOLVERS as unknown as [Function, ...Function[]],
    ...(container ? { container } : {}),
    authChecker,
    authMode: 'error',
    pubSub: options.pubSub ?? inertPubSub,
    scalarsMap: [{ type: Date, scalar: DateTime }],
    // skipMissingProperties off: an explicit null must meet the rules too (type-graphql skips nulls by default).
    validate: { forbidUnknownValues: false, stopAtFirstError: true, skipMissingProperties: false },
  });
  if (container) registerResolverContainer(schema, container);
  return schema;
}

/** The text checked in as schema.graphql; sorted so diffs show real changes only. */
export function printPlazaSchema(schema: GraphQLSchema): string {
  return `# Emitted from the server's resolvers by \`pnpm schema\`; do not edit by hand.\n\n${printSchema(lexicographicSortSchema(schema))}\n`;
}
