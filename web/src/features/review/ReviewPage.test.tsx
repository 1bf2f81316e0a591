import { ApolloProvider } from '@apollo/client/react';
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createApolloClient } from '../../apollo-client';
import { browseFrom, startFakePlazaServer, type FakePlazaServer } from '../../test-support/fake-plaza-server';
import type { ResultOf } from '@graphql-typed-document-node/core';
import { graphqlResponder, respond, type FakeOperation, type GraphqlCall, type Wire } from '../../test-support/graphql-responder';
import { settled } from '../../test-support/settled';
import { ReviewPage } from './ReviewPage';
import { DecideReviewMutation, ReviewAppQuery } from './review-operations';

const REVIEWER = { __typename: 'Viewer', id: 'reviewer-1' };

function appUnderReview(revision: number, ownerId = 'dev-1'): Wire<NonNullable<ResultOf<typeof ReviewAppQuery>['app']>> {
  return {
    __typename: 'App',
    id: 'app-1',
    ownerId,
    name: 'Quiz Time',
    shortDescription: 'Daily trivia',
    iconUrl: 'https://quiz.example/icon.png',
    appUrl: 'https://quiz.example/play',
    category: 'games',
    pricing: 'FREE',
    pricePoints: null,
    webhookUrl: null,
    longDescription: null,
    screenshotUrls: [],
    supportUrl: null,
    privacyPolicyUrl: null,
    status: 'PENDING_REVIEW',
    revision,
    submittedAt: '2026-11-20T08:00:00.000Z',
    reviewDueAt: '2026-11-21T08:00:00.000Z',
    reviewOverdue: true,
    reviewDecisions: [],
    developer: {
      __typename: 'AppDeveloper',
      id: ownerId,
      name: 'quiz.maker',
      email: 'quiz.maker@studio.example',
      otherApps: [{ __typename: 'App', id: 'app-0', name: 'Word Hunt', status: 'REJECTED' }],
      decisions: { __typename: 'DeveloperDecisionCounts', approved: 0, rejected: 2 },
    },
    preChecks: {
      __typename: 'PreCheckReport',
      status: 'DONE',
      results: [{ __typename: 'PreCheckResult', check: 'ICON_SIZE', outcome: 'FAIL', detail: 'The icon is 256x256' }],
    },
  };
}

const decision: Wire<ResultOf<typeof DecideReviewMutation>['decideReview']> = {
  __typename: 'ReviewDecision',
  id: 'd-1',
  appId: 'app-1',
  outcome: 'REJECTED',
  reasons: ['OTHER'],
  note: 'Crashes on start',
  decidedAt: '2026-11-22T08:00:00.000Z',
  appRevision: 7,
};

let server: FakePlazaServer;
let calls: GraphqlCall[];

beforeAll(async () => {
  server = await startFakePlazaServer();
  browseFrom(server.origin);
});

afterAll(() => server.close());

afterEach(() => cleanup());

async function renderReview(answers: FakeOperation[] = [], revision = 7) {
  calls = [];
  server.respondWith(graphqlResponder([respond(ReviewAppQuery, { data: { me: REVIEWER, app: appUnderReview(revision) } }), ...answers], calls));
  const decided: string[] = [];
  render(
    <ApolloProvider client={createApolloClient()}>
      <ReviewPage appId="app-1" onDecided={() => decided.push('app-1')} />
    </ApolloProvider>,
  );
  await screen.findByRole('heading', { name: 'Quiz Time' });
  return decided;
}

const sentDecisions = () => calls.filter((call) => call.operationName === 'DecideReview');
/** The refused decision as the reviewer sees it once done: the button back (it reads Sending… while a decision is sent), every answer in. */
const formAtRest = (name: string) => settled(server, () => expect((screen.getByRole('button', { name }) as HTMLButtonElement).disabled).toBe(false));

describe('Review page', () => {
  it('shows the pre-checks with their outcome in words and a preview through the launcher', async () => {
    await renderReview();
    expect(screen.getByText('Fail')).toBeTruthy();
    expect(screen.getByText('The icon is 256x256')).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Preview' }).getAttribute('href')).toBe('/apps/app-1/open');
    expect(screen.getByText(/\(overdue\)/)).toBeTruthy();
  });

  it('says who the developer is: name and address, decisions on their apps, their other apps with states', async () => {
    await renderReview();
    const record = screen.getByRole('region', { name: 'Developer' });
    expect(record.textContent).toContain('quiz.maker (quiz.maker@studio.example)');
    expect(record.textContent).toContain('Approved: 0 · Rejected: 2');
    expect(screen.getByRole('link', { name: 'Word Hunt' }).closest('li')!.textContent).toBe('Word Hunt Rejected');
    expect(screen.getByText('Games')).toBeTruthy();
  });

  it('starts with no outcome chosen, and asks for one instead of sending', async () => {
    await renderReview();
    expect((screen.getByLabelText('Approve') as HTMLInputElement).checked).toBe(false);
    expect((screen.getByLabelText('Reject') as HTMLInputElement).checked).toBe(false);
    fireEvent.click(screen.getByRole('button', { name: 'Send decision' }));

    expect(screen.getByText('Choose Approve or Reject.')).toBeTruthy();
    expect(screen.getByRole('group', { name: 'Outcome' }).getAttribute('aria-invalid')).toBe('true');
    await formAtRest('Send decision');
    expect(sentDecisions()).toHaveLength(0);
  });

  it('needs at least one reason to reject', async () => {
    await renderReview();
    fireEvent.click(screen.getByLabelText('Reject'));
    fireEvent.click(screen.getByRole('button', { name: 'Reject app' }));

    expect(screen.getByText('Choose at least one reason to reject.')).toBeTruthy();
    await formAtRest('Reject app');
    expect(sentDecisions()).toHaveLength(0);
  });

  it('requires a note with OTHER, says so while choosing, and sends the displayed revision', async () => {
    const decided = await renderReview([respond(DecideReviewMutation, { data: { decideReview: decision } })]);
    fireEvent.click(screen.getByLabelText('Reject'));
    expect(screen.getByText('Optional, unless "Other" is checked.')).toBeTruthy();

    fireEvent.click(screen.getByLabelText('Other (see the note)'));
    expect(screen.getByText('Required because "Other" is checked.')).toBeTruthy();

    fireEvent.click(screen.getByRole('button', { name: 'Reject app' }));
    expect(screen.getByLabelText('Note to the developer').getAttribute('aria-invalid')).toBe('true');
    await formAtRest('Reject app');
    expect(sentDecisions()).toHaveLength(0);

    fireEvent.change(screen.getByLabelText('Note to the developer'), { target: { value: 'Crashes on start' } });
    fireEvent.click(screen.getByRole('button', { name: 'Reject app' }));

    await waitFor(() => expect(decided).toEqual(['app-1']));
    expect(sentDecisions().map((call) => call.variables)).toEqual([
      {
        input: { appId: 'app-1', revision: 7, outcome: 'REJECTED', reasons: ['OTHER'], note: 'Crashes on start' },
      },
    ]);
  });

  it('sends an approval without reasons', async () => {
    const decided = await renderReview([respond(DecideReviewMutation, { data: { decideReview: { ...decision, outcome: 'APPROVED', reasons: [], note: null } } })]);
    fireEvent.click(screen.getByLabelText('Approve'));
    fireEvent.click(screen.getByRole('button', { name: 'Approve app' }));
    await waitFor(() => expect(decided).toEqual(['app-1']));
    expect(sentDecisions().map((call) => call.variables)).toEqual([{ input: { appId: 'app-1', revision: 7, outcome: 'APPROVED', reasons: [], note: null } }]);
  });

  it('offers no decision on the reviewer’s own app and says why', async () => {
    await renderReview([respond(ReviewAppQuery, { data: { me: REVIEWER, app: appUnderReview(7, REVIEWER.id) } })]);
    expect(screen.getByRole('note').textContent).toBe('You submitted this app, so you cannot decide its review: another reviewer must approve or reject it.');
    expect(screen.queryByRole('button', { name: 'Approve app' })).toBeNull();
    expect(screen.queryByLabelText('Reject')).toBeNull();
    await settled(server, () => expect(screen.getByRole('note')).toBeTruthy());
    expect(sentDecisions()).toHaveLength(0);
  });

  it('explains a stale decision and reloads the app on request', async () => {
    const decided = await renderReview([
      respond(DecideReviewMutation, {
        data: null,
        // As ReviewService answers a decision on a revision the developer has since replaced.
        errors: [{ message: 'The developer changed this app (revision 8) after you opened revision 7; review it again', extensions: { code: 'CONFLICT' } }],
      }),
    ]);
    fireEvent.click(screen.getByLabelText('Approve'));
    fireEvent.click(screen.getByRole('button', { name: 'Approve app' }));

    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('This app changed since you opened it.');
    expect(alert.textContent).toContain('The developer changed this app (revision 8) after you opened revision 7; review it again');
    expect(decided).toEqual([]);

    server.respondWith(graphqlResponder([respond(ReviewAppQuery, { data: { me: REVIEWER, app: appUnderReview(8) } })], calls));
    fireEvent.click(screen.getByRole('button', { name: 'Reload the app' }));
    await waitFor(() => expect(screen.queryByRole('alert')).toBeNull());
    expect(screen.getByText('8')).toBeTruthy();
  });
});
