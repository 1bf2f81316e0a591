import type { GraphQLTestClient } from './graphql-client.js';

export const APP_FIELDS = `id name shortDescription iconUrl appUrl category pricing pricePoints webhookUrl status revision submittedAt reviewDueAt ownerId
  reviewDecisions { id outcome reasons note decidedAt }`;

export const SUBMIT_APP = `mutation Submit($input: SubmitAppInput!) { submitApp(input: $input) { ${APP_FIELDS} } }`;
export const UPDATE_APP = `mutation Update($id: ID!, $input: UpdateAppInput!) { updateApp(id: $id, input: $input) { ${APP_FIELDS} } }`;
export const DECIDE = `mutation Decide($input: ReviewDecisionInput!) { decideReview(input: $input) { id appId outcome reasons note decidedAt } }`;

let counter = 0;
/** A submission that passes every rule; override one field to break exactly that rule. */
export function validAppInput(overrides: Record<string, unknown> = {}) {
  counter += 1;
  return {
    name: `Quiz Time ${counter}`,
    shortDescription: 'Daily trivia for the whole family',
    iconUrl: 'https://apps.example.com/quiz/icon.png',
    appUrl: 'https://apps.example.com/quiz/',
    category: 'games',
    pricing: 'FREE',
    pricePoints: null,
    webhookUrl: null,
    ...overrides,
  };
}

export async function submitApp(developer: GraphQLTestClient, overrides: Record<string, unknown> = {}) {
  const { submitApp } = await developer.ok<{ submitApp: any }>(SUBMIT_APP, { input: validAppInput(overrides) });
  return submitApp;
}
