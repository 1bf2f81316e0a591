import type { ServerResponse } from 'node:http';
import { sendJson, type RecordedRequest, type Responder } from './fake-plaza-server';

export interface GraphqlCall {
  operationName: string;
  variables: Record<string, unknown>;
}

type Answer = (variables: Record<string, unknown>) => { data?: unknown; errors?: unknown[] };

/** Answers GraphQL POSTs by operation name, so a test lists only the operations its component sends. */
export function graphqlResponder(answers: Record<string, Answer>, calls: GraphqlCall[] = []): Responder {
  return (request: RecordedRequest, response: ServerResponse) => {
    const { operationName, variables = {} } = JSON.parse(request.body) as { operationName: string; variables?: Record<string, unknown> };
    calls.push({ operationName, variables });
    const answer = answers[operationName];
    if (!answer) return sendJson(response, 200, { errors: [{ message: `this test does not answer ${operationName}` }] });
    sendJson(response, 200, answer(variables));
  };
}
