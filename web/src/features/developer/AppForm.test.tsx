import { ApolloProvider } from '@apollo/client/react';
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createApolloClient } from '../../apollo-client';
import { browseFrom, startFakePlazaServer, type FakePlazaServer } from '../../test-support/fake-plaza-server';
import { graphqlResponder, respond } from '../../test-support/graphql-responder';
import { AppForm } from './AppForm';
import { AppCategoriesQuery } from './app-form';
import { toAppInput, type AppFormValues } from './app-rules';

let server: FakePlazaServer;

beforeAll(async () => {
  server = await startFakePlazaServer();
  browseFrom(server.origin);
  server.respondWith(graphqlResponder([respond(AppCategoriesQuery, { data: { categories: [{ __typename: 'Category', id: 'games', label: 'Games' }] } })]));
});

afterAll(() => server.close());

afterEach(() => cleanup());

const approvedApp: AppFormValues = {
  name: 'Quiz Time',
  shortDescription: 'Daily trivia',
  iconUrl: 'https://quiz.example/icon.png',
  appUrl: 'https://quiz.example/play',
  category: 'games',
  pricing: 'FREE',
  pricePoints: '',
  webhookUrl: 'https://quiz.example/hooks',
  webhookEvents: ['APP_PURCHASED', 'APP_REFUNDED'],
  longDescription: '',
  screenshotUrls: '',
  supportUrl: '',
  privacyPolicyUrl: '',
};

/** The edit form as the developer app page uses it: what is saved is toAppInput against the app as it is. */
async function renderEdit(approved: boolean) {
  const saved: ReturnType<typeof toAppInput>[] = [];
  render(
    <ApolloProvider client={createApolloClient()}>
      <AppForm
        initialValues={approvedApp}
        approved={approved}
        submitLabel="Save changes"
        busyLabel="Saving…"
        onSubmit={async (values) => void saved.push(toAppInput(values, approvedApp))}
      />
    </ApolloProvider>,
  );
  await screen.findByRole('option', { name: 'Games' });
  return saved;
}

describe('Editing an app', () => {
  it('on an approved app, says which fields go back to review and which change at once', async () => {
    await renderEdit(true);
    expect(screen.getByRole('note').textContent).toBe(
      'This app is approved. Changing its listing (name, short description, icon URL, App URL, category or pricing) sends it back to review, and the store keeps showing the approved version until the review is decided. The webhook URL and webhook events change at once, without review.',
    );
    cleanup();
    await renderEdit(false);
    expect(screen.queryByRole('note')).toBeNull();
  });

  it('shows the app’s own events ticked, and sends events only when the developer changed them', async () => {
    const saved = await renderEdit(true);
    expect(['app.purchased', 'app.installed', 'app.uninstalled', 'app.refunded'].map((event) => (screen.getByLabelText(event) as HTMLInputElement).checked)).toEqual([
      true,
      false,
      false,
      true,
    ]);

    fireEvent.click(screen.getByRole('button', { name: 'Save changes' }));
    await waitFor(() => expect(saved).toHaveLength(1));
    expect(saved[0]).not.toHaveProperty('webhookEvents');

    fireEvent.click(screen.getByLabelText('app.installed'));
    fireEvent.click(screen.getByRole('button', { name: 'Save changes' }));
    await waitFor(() => expect(saved).toHaveLength(2));
    expect(saved[1]?.webhookEvents).toEqual(['APP_PURCHASED', 'APP_INSTALLED', 'APP_REFUNDED']);
  });
});
