import { ApolloProvider } from '@apollo/client/react';
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createApolloClient } from '../../apollo-client';
import { browseFrom, startFakePlazaServer, type FakePlazaServer } from '../../test-support/fake-plaza-server';
import { graphqlResponder, respond, type FakeOperation, type GraphqlCall } from '../../test-support/graphql-responder';
import { settled } from '../../test-support/settled';
import { LocaleProvider } from '../../i18n/i18n';
import { localeFormat } from '../../i18n/dates';
import { AppCategoriesQuery } from './app-form';
import { SubmitAppMutation, SubmitAppPage } from './SubmitAppPage';
import { useState } from 'react';
import { clientWithLiveFeed } from '../webhook-logs/test-deliveries';
import { DeveloperAppPage } from './DeveloperAppPage';
import { DeveloperAppQuery } from './developer-app';

const categories = respond(AppCategoriesQuery, {
  data: {
    categories: [
      { __typename: 'Category', id: 'games', label: 'Games' },
      { __typename: 'Category', id: 'travel', label: 'Travel' },
    ],
  },
});

let server: FakePlazaServer;
let calls: GraphqlCall[];

beforeAll(async () => {
  server = await startFakePlazaServer();
  browseFrom(server.origin);
});

afterAll(() => server.close());

afterEach(() => cleanup());

async function renderForm(answers: FakeOperation[] = [], locale: 'en' | 'vi' = 'en') {
  calls = [];
  server.respondWith(graphqlResponder([categories, ...answers], calls));
  const submitted: string[] = [];
  render(
    <ApolloProvider client={createApolloClient()}>
      <LocaleProvider locale={locale}>
        <SubmitAppPage onSubmitted={(appId) => submitted.push(appId)} />
      </LocaleProvider>
    </ApolloProvider>,
  );
  // Loaded before the test acts, so no request is still in flight when the page is torn down.
  // The category's name is in the reader's language (the server's label is English).
  await screen.findByRole('option', { name: locale === 'vi' ? 'Trò chơi' : 'Games' });
  return submitted;
}

const type = (label: string, value: string) => fireEvent.change(screen.getByLabelText(label), { target: { value } });

function describedText(label: string) {
  const ids = screen.getByLabelText(label).getAttribute('aria-describedby')?.split(' ') ?? [];
  return ids.map((id) => document.getElementById(id)?.textContent ?? '').join(' | ');
}

/** The refused submit as the user sees it once done: the button ready again (it is disabled while sending) and every answer in. */
const formAtRest = () => settled(server, () => expect((screen.getByRole('button', { name: 'Submit for review' }) as HTMLButtonElement).disabled).toBe(false));

describe('Submit App form', () => {
  it('counts the short description in code points as you type', async () => {
    await renderForm();
    expect(describedText('Short description')).toBe('0 / 120 characters');

    type('Short description', 'Chào 👋🏽');
    // "👋🏽" is two code points (hand + skin tone) but four UTF-16 units; the server counts code points.
    expect(describedText('Short description')).toBe('7 / 120 characters');

    type('Short description', 'x'.repeat(121));
    expect(describedText('Short description')).toBe('121 / 120 characters');
  });

  it('hints that the App URL and Icon URL must be https while typing', async () => {
    await renderForm();
    type('App URL', 'http://quiz.example/play');
    expect(describedText('App URL')).toBe('Must start with https://');
    type('Icon URL', 'quiz.example/icon.png');
    expect(describedText('Icon URL')).toBe('Enter a full address starting with https://');

    type('App URL', 'https://quiz.example/play');
    expect(describedText('App URL')).not.toMatch(/Must start/);
  });

  it('says one thing per problem: after a refused submit the https hint steps back for the message', async () => {
    await renderForm();
    type('App URL', 'http://quiz.example/play');
    fireEvent.click(screen.getByRole('button', { name: 'Submit for review' }));

    const field = screen.getByLabelText('App URL').closest('.field')!;
    const messages = [...field.querySelectorAll('.field-problem, .hint.warning')].map((message) => message.textContent);
    expect(messages).toEqual(['Must be an https:// address.']);
    expect(describedText('App URL')).not.toMatch(/Must start/);
    await formAtRest();

    // Typing again clears the message about the old value, and the live hint speaks for the new one.
    type('App URL', 'http://quiz.example/play2');
    expect([...field.querySelectorAll('.field-problem, .hint.warning')].map((message) => message.textContent)).toEqual(['Must start with https://']);
  });

  it("says the form's problems in the reader's language, one per field", async () => {
    await renderForm([], 'vi');
    type('URL ứng dụng', 'http://quiz.example/play');
    fireEvent.click(screen.getByRole('button', { name: 'Gửi để duyệt' }));

    const field = screen.getByLabelText('URL ứng dụng').closest('.field')!;
    expect([...field.querySelectorAll('.field-problem, .hint.warning')].map((message) => message.textContent)).toEqual(['Phải là một địa chỉ https://.']);
    expect(describedText('Tên')).toContain('Nhập tên.');
    expect(describedText('Danh mục')).toContain('Chọn một danh mục.');
    await settled(server, () => expect((screen.getByRole('button', { name: 'Gửi để duyệt' }) as HTMLButtonElement).disabled).toBe(false));
  });

  it('asks for a price only for a paid app', async () => {
    await renderForm();
    expect(screen.queryByLabelText('Price (points)')).toBeNull();

    fireEvent.click(screen.getByLabelText('Paid'));
    expect(screen.getByLabelText('Price (points)')).toBeTruthy();

    fireEvent.click(screen.getByLabelText('Free'));
    expect(screen.queryByLabelText('Price (points)')).toBeNull();
  });

  it('says a refusal only the server can make in Vietnamese by its reason, and one this build has no words for as the server wrote it', async () => {
    const refusals = [
      {
        message: 'webhookUrl cannot point at an internal address: 10.0.0.5 is private',
        extensions: { code: 'BAD_USER_INPUT' as const, field: 'webhookUrl', reason: 'WEBHOOK_INTERNAL_ADDRESS' },
      },
      { message: 'You already have 50 apps, the most one account may have (50)', extensions: { code: 'CONFLICT' as const, reason: 'TOO_MANY_APPS' } },
      { message: 'appUrl answered 418 to the platform', extensions: { code: 'BAD_USER_INPUT' as const, field: 'appUrl', reason: 'SOMETHING_NEWER' } },
    ];
    await renderForm([respond(SubmitAppMutation, () => ({ data: null, errors: [refusals.shift()!] }))], 'vi');
    type('Tên', 'Sổ Tay');
    type('Mô tả ngắn', 'Công thức nấu ăn');
    type('URL ứng dụng', 'https://sotay.example/app');
    type('URL biểu tượng', 'https://sotay.example/icon.png');
    fireEvent.change(screen.getByLabelText('Danh mục'), { target: { value: 'games' } });
    type('URL webhook (không bắt buộc)', 'https://hooks.sotay.example/plaza');
    const submit = () => fireEvent.click(screen.getByRole('button', { name: 'Gửi để duyệt' }));

    submit();
    await waitFor(() => expect(screen.getByLabelText('URL webhook (không bắt buộc)').getAttribute('aria-invalid')).toBe('true'));
    expect(describedText('URL webhook (không bắt buộc)')).toContain('URL webhook trỏ tới một địa chỉ nội bộ (máy này hoặc mạng riêng)');
    expect(describedText('URL webhook (không bắt buộc)')).not.toContain('internal address');

    submit();
    expect((await screen.findByText(/số ứng dụng tối đa/)).textContent).toBe('Bạn đã có số ứng dụng tối đa cho một tài khoản; hãy cập nhật một ứng dụng hiện có.');

    submit();
    await waitFor(() => expect(describedText('URL ứng dụng')).toContain('appUrl answered 418 to the platform'));
  });

  it("attaches the server's error to the field it names", async () => {
    await renderForm([
      respond(SubmitAppMutation, {
        data: null,
        errors: [{ message: 'appUrl must use HTTPS (https://...)', extensions: { code: 'BAD_USER_INPUT', field: 'appUrl' } }],
      }),
    ]);
    type('Name', 'Quiz Time');
    type('Short description', 'Daily trivia');
    type('App URL', 'https://quiz.example/play');
    type('Icon URL', 'https://quiz.example/icon.png');
    fireEvent.change(screen.getByLabelText('Category'), { target: { value: 'games' } });

    fireEvent.click(screen.getByRole('button', { name: 'Submit for review' }));

    await waitFor(() => expect(screen.getByLabelText('App URL').getAttribute('aria-invalid')).toBe('true'));
    expect(describedText('App URL')).toContain('appUrl must use HTTPS (https://...)');
    expect(screen.getByLabelText('Name').getAttribute('aria-invalid')).toBeNull();
    expect(calls.find((call) => call.operationName === 'SubmitApp')?.variables).toEqual({
      input: {
        name: 'Quiz Time',
        shortDescription: 'Daily trivia',
        iconUrl: 'https://quiz.example/icon.png',
        appUrl: 'https://quiz.example/play',
        category: 'games',
        pricing: 'FREE',
        pricePoints: null,
        webhookUrl: null,
      },
    });
  });

  it('refuses invisible and text-direction characters before sending, and keeps emoji joined', async () => {
    await renderForm();
    type('Name', 'Plaza Wallet\u202Egnp.exe');
    type('Short description', 'Pays\u200B bills');
    fireEvent.click(screen.getByRole('button', { name: 'Submit for review' }));

    expect(describedText('Name')).toContain('Remove the invisible or text-direction character U+202E');
    expect(describedText('Short description')).toContain('Remove the invisible or text-direction character U+200B');
    await formAtRest();
    expect(calls.map((call) => call.operationName)).not.toContain('SubmitApp');

    type('Name', 'Dev Tools 👩‍💻');
    expect(describedText('Name')).not.toContain('invisible');
  });

  it('sends nothing while a field breaks a rule the form knows', async () => {
    await renderForm();
    fireEvent.click(screen.getByLabelText('Paid'));
    fireEvent.click(screen.getByRole('button', { name: 'Submit for review' }));

    expect(screen.getByLabelText('Name').getAttribute('aria-invalid')).toBe('true');
    expect(screen.getByLabelText('Price (points)').getAttribute('aria-invalid')).toBe('true');
    await formAtRest();
    expect(calls.map((call) => call.operationName)).not.toContain('SubmitApp');
  });

  it("applies the server's own rules before sending: a URL with a password, a price past the maximum, an ftp webhook", async () => {
    await renderForm();
    type('Name', 'Quiz Time');
    type('Short description', 'Daily trivia');
    type('App URL', 'https://me:secret@quiz.example/play');
    type('Icon URL', 'https://quiz.example/icon.png');
    fireEvent.change(screen.getByLabelText('Category'), { target: { value: 'games' } });
    fireEvent.click(screen.getByLabelText('Paid'));
    type('Price (points)', '1000001');
    type('Webhook URL (optional)', 'ftp://hooks.quiz.example');
    fireEvent.click(screen.getByRole('button', { name: 'Submit for review' }));

    expect(describedText('App URL')).toContain('Leave out the user name and password.');
    expect(describedText('Price (points)')).toContain('At most 1,000,000 points.');
    expect(describedText('Webhook URL (optional)')).toContain('Must be an http:// or https:// address.');
    expect(screen.getByLabelText('Name').getAttribute('aria-invalid')).toBeNull();
    await formAtRest();
    expect(calls.map((call) => call.operationName)).not.toContain('SubmitApp');
  });

  it('ticks all four webhook events by default, says at once when none is ticked, and sends only the ones ticked', async () => {
    await renderForm([respond(SubmitAppMutation, { data: { submitApp: { __typename: 'App', id: 'app_1', status: 'PENDING_REVIEW', reviewDueAt: '2030-01-02T00:00:00.000Z' } } })]);
    const events = ['app.purchased', 'app.installed', 'app.uninstalled', 'app.refunded'];
    for (const event of events) expect((screen.getByLabelText(event) as HTMLInputElement).checked).toBe(true);

    for (const event of events) fireEvent.click(screen.getByLabelText(event));
    // Before any submit: the last untick is enough to say so.
    expect(screen.getByRole('alert').textContent).toBe('Tick at least one event. To receive none, remove the webhook URL instead.');

    type('Name', 'Quiz Time');
    type('Short description', 'Daily trivia');
    type('App URL', 'https://quiz.example/play');
    type('Icon URL', 'https://quiz.example/icon.png');
    fireEvent.change(screen.getByLabelText('Category'), { target: { value: 'games' } });
    fireEvent.click(screen.getByRole('button', { name: 'Submit for review' }));
    // One message for the one problem, and the first box has the focus.
    expect(screen.getAllByText('Tick at least one event. To receive none, remove the webhook URL instead.')).toHaveLength(1);
    expect(document.activeElement).toBe(screen.getByLabelText('app.purchased'));

    fireEvent.click(screen.getByLabelText('app.refunded'));
    fireEvent.click(screen.getByLabelText('app.purchased'));
    expect(screen.queryByRole('alert')).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'Submit for review' }));

    await waitFor(() => expect(calls.map((call) => call.operationName)).toContain('SubmitApp'));
    // The server hears of the submit only after the events were fixed, and gets them in the catalogue's order.
    expect(calls.filter((call) => call.operationName === 'SubmitApp')).toHaveLength(1);
    expect((calls.find((call) => call.operationName === 'SubmitApp')?.variables.input as { webhookEvents: string[] }).webhookEvents).toEqual(['APP_PURCHASED', 'APP_REFUNDED']);
  });
});

describe('after a first submission', () => {
  // Local noon, so the date reads the same in every time zone the test runs in.
  const due = new Date(2030, 0, 2, 12, 4).toISOString();
  const submitted = respond(SubmitAppMutation, { data: { submitApp: { __typename: 'App', id: 'app_1', status: 'PENDING_REVIEW', reviewDueAt: due } } });
  const theApp = respond(DeveloperAppQuery, {
    data: {
      app: {
        __typename: 'App',
        id: 'app_1',
        name: 'Quiz Time',
        shortDescription: 'Daily trivia',
        iconUrl: 'https://quiz.example/icon.png',
        appUrl: 'https://quiz.example/play',
        category: 'games',
        pricing: 'FREE',
        pricePoints: null,
        webhookUrl: null,
        webhookEvents: ['APP_PURCHASED'],
        longDescription: null,
        screenshotUrls: [],
        supportUrl: null,
        privacyPolicyUrl: null,
        status: 'PENDING_REVIEW',
        submittedAt: due,
        reviewDueAt: due,
        reviewOverdue: false,
        reviewDecisions: [],
        preChecks: null,
        earnings: null,
      },
    },
  });

  /** The submit page, then the app's page it navigates to (the router remounts: nothing passes between them but the notice). */
  function SubmitThenAppPage() {
    const [appId, setAppId] = useState<string | null>(null);
    return appId ? <DeveloperAppPage appId={appId} /> : <SubmitAppPage onSubmitted={setAppId} />;
  }

  async function submitAndLand(locale: 'en' | 'vi', labels: { name: string; description: string; appUrl: string; iconUrl: string; category: string; submit: string }) {
    calls = [];
    server.respondWith(graphqlResponder([categories, submitted, theApp], calls));
    render(
      <ApolloProvider client={clientWithLiveFeed().client}>
        <LocaleProvider locale={locale}>
          <SubmitThenAppPage />
        </LocaleProvider>
      </ApolloProvider>,
    );
    await screen.findByRole('option', { name: locale === 'vi' ? 'Trò chơi' : 'Games' });
    type(labels.name, 'Quiz Time');
    type(labels.description, 'Daily trivia');
    type(labels.appUrl, 'https://quiz.example/play');
    type(labels.iconUrl, 'https://quiz.example/icon.png');
    fireEvent.change(screen.getByLabelText(labels.category), { target: { value: 'games' } });
    fireEvent.click(screen.getByRole('button', { name: labels.submit }));
    await screen.findByRole('heading', { name: 'Quiz Time' });
  }

  /** The news in the page's polite live region, where a save's news goes too. */
  const news = async () => {
    await waitFor(() => expect(document.querySelector('.status-region[aria-live="polite"] [role="status"]')).not.toBeNull());
    return document.querySelector('.status-region [role="status"]')?.textContent;
  };

  it('says on the app page that it was submitted and when the review is due, once', async () => {
    await submitAndLand('en', { name: 'Name', description: 'Short description', appUrl: 'App URL', iconUrl: 'Icon URL', category: 'Category', submit: 'Submit for review' });
    expect(await news()).toBe(`Submitted for review: due by ${localeFormat('en').dateTime(due)}.`);

    // Coming back to the page later does not repeat old news.
    cleanup();
    render(
      <ApolloProvider client={clientWithLiveFeed().client}>
        <LocaleProvider locale="en">
          <DeveloperAppPage appId="app_1" />
        </LocaleProvider>
      </ApolloProvider>,
    );
    await screen.findByRole('heading', { name: 'Quiz Time' });
    await settled(server, () => expect(document.querySelector('.status-region [role="status"]')).toBeNull());
  });

  it('says it in Vietnamese to a Vietnamese reader', async () => {
    await submitAndLand('vi', { name: 'Tên', description: 'Mô tả ngắn', appUrl: 'URL ứng dụng', iconUrl: 'URL biểu tượng', category: 'Danh mục', submit: 'Gửi để duyệt' });
    expect(await news()).toBe(`Đã gửi duyệt: hạn trước ${localeFormat('vi').dateTime(due)}.`);
  });
});
