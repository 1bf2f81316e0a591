import type { ServerResponse } from 'node:http';
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { Kind } from 'graphql';
import { sendJson, type RecordedRequest, type Responder } from './fake-plaza-server';
import type { Reply, Wire } from './wire';

export type { ErrorCode, FakeGraphqlError, Reply, Wire } from './wire';

export interface GraphqlCall {
  operationName: string;
  variables: Record<string, unknown>;
}

/** One operation the fake server answers; made by `respond`, so its data is checked against the schema. */
export interface FakeOperation {
  operationName: string;
  answer(variables: Record<string, unknown>): Reply<unknown>;
}

/**
 * Answers `document` (a component's own TypedDocumentNode) with its result type, so a fake that drifts
 * from schema.graphql fails the type check. Give the reply itself where it does not depend on the
 * variables: TypeScript then also refuses fields the schema does not have, which it does not check in
 * what a function returns; give a function of the variables where the answer depends on them.
 */
export function respond<TData, TVariables>(
  document: TypedDocumentNode<TData, TVariables>,
  // NoInfer: the document alone fixes the types, so the answer is checked against them (literals kept), not inferred from.
  answer: NoInfer<Reply<Wire<TData>> | ((variables: TVariables) => Reply<Wire<TData>>)>,
): FakeOperation {
  const operation = document.definitions.find((definition) => definition.kind === Kind.OPERATION_DEFINITION);
  const operationName = operation?.name?.value;
  if (!operationName) throw new Error('respond() needs a document with a named operation');
  // The wire carries JSON: the variables are what the component sent for this very document.
  return { operationName, answer: (variables) => (typeof answer === 'function' ? answer(variables as TVariables) : answer) };
}

/** Answers GraphQL POSTs by operation name, so a test lists only the operations its component sends (a later one wins). */
export function graphqlResponder(operations: FakeOperation[], calls: GraphqlCall[] = []): Responder {
  const answers = new Map(operations.map((operation) => [operation.operationName, operation.answer]));
  return (request: RecordedRequest, response: ServerResponse) => {
    const { operationName, variables = {} } = JSON.parse(request.body) as { operationName: string; variables?: Record<string, unknown> };
    calls.push({ operationName, variables });
    const answer = answers.get(operationName);
    if (!answer) return sendJson(response, 200, { errors: [{ message: `this test does not answer ${operationName}` }] });
    sendJson(response, 200, answer(variables));
  };
}
