import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { browseFrom, sendJson, startFakePlazaServer, type FakePlazaServer } from '../../test-support/fake-plaza-server';
import { settled } from '../../test-support/settled';
import { LocaleProvider } from '../../i18n/i18n';
import { SessionPanel } from './SessionPanel';

const developer = { id: 'usr_dev', email: 'dev@example.com', roles: ['DEVELOPER', 'USER'] };

let server: FakePlazaServer;

beforeAll(async () => {
  server = await startFakePlazaServer();
  browseFrom(server.origin);
});

afterAll(() => server.close());

afterEach(() => {
  cleanup();
  server.requests.length = 0;
});

function submitEmail(email: string) {
  fireEvent.change(screen.getByLabelText('E-mail address'), { target: { value: email } });
  fireEvent.click(screen.getByRole('button', { name: 'Sign in' }));
}

describe('sign-in form', () => {
  it.each([
    ['an empty', '', /enter your e-mail address/i],
    ['a blank', '   ', /enter your e-mail address/i],
    ['a malformed', 'dev.example.com', /e-mail address must look like/i],
  ])('refuses %s e-mail address without sending anything', async (_case, email, message) => {
    render(<SessionPanel initialUser={null} />);

    submitEmail(email);

    expect(screen.getByRole('alert').textContent).toMatch(message);
    const input = screen.getByLabelText('E-mail address');
    expect(input.getAttribute('aria-invalid')).toBe('true');
    expect(input.getAttribute('aria-describedby')).toBe(screen.getByRole('alert').id);
    // At rest as the user sees it (the button reads Signing in… while sending), and every request answered, before concluding none was sent.
    await settled(server, () => {
      expect(screen.getByRole('alert').textContent).toMatch(message);
      expect((screen.getByRole('button', { name: 'Sign in' }) as HTMLButtonElement).disabled).toBe(false);
    });
    expect(server.requests).toEqual([]);
  });

  it('posts the e-mail address to /auth/dev/sign-in and shows who is signed in', async () => {
    server.respondWith((_request, response) =>
      sendJson(response, 200, { token: 'token-1', user: developer }, { 'set-cookie': 'plaza_session=token-1; Path=/; HttpOnly; SameSite=Lax' }),
    );
    const sessions: unknown[] = [];
    render(<SessionPanel initialUser={null} onSessionChange={(user) => sessions.push(user)} />);

    submitEmail(' dev@example.com ');

    expect((await screen.findByText(/Signed in as/)).textContent).toBe('Signed in as dev@example.com');
    expect(screen.getByText('DEVELOPER')).toBeTruthy();
    expect(screen.getByText('USER')).toBeTruthy();
    expect(server.requests).toEqual([{ method: 'POST', path: '/auth/dev/sign-in', contentType: 'application/json', body: JSON.stringify({ email: 'dev@example.com' }) }]);
    expect(sessions).toEqual([developer]);
  });

  it("shows the server's reason when it refuses the sign-in", async () => {
    server.respondWith((_request, response) =>
      sendJson(response, 400, { errors: [{ message: 'email is longer than this server accepts', extensions: { code: 'BAD_USER_INPUT', field: 'email' } }] }),
    );
    render(<SessionPanel initialUser={null} />);

    submitEmail('dev@example.com');

    expect((await screen.findByRole('alert')).textContent).toBe('email is longer than this server accepts');
    expect(screen.getByLabelText('E-mail address').getAttribute('aria-invalid')).toBe('true');
  });
});

describe('sign-in problems in Vietnamese', () => {
  it.each([
    [
      'a refused address',
      400,
      { errors: [{ message: 'email is longer than this server accepts', extensions: { code: 'BAD_USER_INPUT', field: 'email' } }] },
      'Máy chủ không chấp nhận địa chỉ e-mail này.',
    ],
    [
      'too many tries',
      429,
      { errors: [{ message: 'Too many requests from this address; try again in 30 s', extensions: { code: 'RATE_LIMITED', retryAfterSeconds: 30 } }] },
      'Quá nhiều yêu cầu; hãy thử lại sau 30 giây.',
    ],
    [
      'development sign-in turned off',
      404,
      { errors: [{ message: 'Development sign-in is turned off on this server', extensions: { code: 'NOT_FOUND' } }] },
      'Đăng nhập khi phát triển đã bị tắt trên máy chủ này.',
    ],
    ['an answer without an error body', 502, {}, 'Máy chủ trả lời HTTP 502.'],
    // A code and field this build has no words for: the server's own text rather than nothing.
    [
      'a refusal without words here',
      409,
      { errors: [{ message: 'This account is suspended until review', extensions: { code: 'CONFLICT', reason: 'ACCOUNT_SUSPENDED' } }] },
      'This account is suspended until review',
    ],
  ])('says %s in Vietnamese, or as the server wrote it when there are no words for it', async (_case, status, body, said) => {
    server.respondWith((_request, response) => sendJson(response, status, body));
    render(
      <LocaleProvider locale="vi">
        <SessionPanel initialUser={null} />
      </LocaleProvider>,
    );
    fireEvent.change(screen.getByLabelText('Địa chỉ e-mail'), { target: { value: 'dev@example.com' } });
    fireEvent.click(screen.getByRole('button', { name: 'Đăng nhập' }));

    expect((await screen.findByRole('alert')).textContent).toBe(said);
  });
});

describe('signed-in state', () => {
  it('signs out with POST /auth/sign-out and offers the sign-in form again', async () => {
    server.respondWith((_request, response) => void response.writeHead(204).end());
    render(<SessionPanel initialUser={developer} />);

    fireEvent.click(screen.getByRole('button', { name: 'Sign out' }));

    expect(await screen.findByLabelText('E-mail address')).toBeTruthy();
    expect(server.requests.map(({ method, path }) => `${method} ${path}`)).toEqual(['POST /auth/sign-out']);
  });
});
