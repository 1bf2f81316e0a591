import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { browseFrom, sendJson, startFakePlazaServer, type FakePlazaServer } from '../../test-support/fake-plaza-server';
import { settled } from '../../test-support/settled';
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

describe('signed-in state', () => {
  it('signs out with POST /auth/sign-out and offers the sign-in form again', async () => {
    server.respondWith((_request, response) => void response.writeHead(204).end());
    render(<SessionPanel initialUser={developer} />);

    fireEvent.click(screen.getByRole('button', { name: 'Sign out' }));

    expect(await screen.findByLabelText('E-mail address')).toBeTruthy();
    expect(server.requests.map(({ method, path }) => `${method} ${path}`)).toEqual(['POST /auth/sign-out']);
  });
});
