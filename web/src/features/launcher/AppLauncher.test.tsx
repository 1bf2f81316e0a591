import { ApolloProvider } from '@apollo/client/react';
import nodeConsole from 'node:console';
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createApolloClient } from '../../apollo-client';
import { browseFrom, startFakePlazaServer, type FakePlazaServer } from '../../test-support/fake-plaza-server';
import { graphqlResponder, respond, type Wire } from '../../test-support/graphql-responder';
import type { LaunchAppMutation } from '../../gql/graphql';
import { AppLauncher } from './AppLauncher';
import { LaunchAppMutation as LaunchApp, LauncherAppQuery } from './launch-app';
import { APP_READY_TIMEOUT_MS, INIT_SESSION_RESEND_MS } from './session-handshake';

const APP_ORIGIN = 'https://quiz.example';
const launchFields: Omit<Wire<LaunchAppMutation['launchApp']>, 'token'> = {
  __typename: 'AppLaunch',
  appId: 'app_1',
  appUrl: `${APP_ORIGIN}/play`,
  targetOrigin: APP_ORIGIN,
  userId: 'usr_42',
  locale: 'vi',
  theme: 'dark',
  expiresAt: '2030-01-01T00:05:00.000Z',
};

// Captured before fake timers replace it: waiting for the real server's answers takes real time.
const realSetTimeout = globalThis.setTimeout;

let server: FakePlazaServer;
let launches: number;

beforeAll(async () => {
  server = await startFakePlazaServer();
  browseFrom(server.origin);
  // happy-dom does not load iframe pages and reports each one as an error, on the console it was created
  // with (Node's own, not vitest's); these tests stand in for the app's window instead.
  const reportError = nodeConsole.error.bind(nodeConsole);
  vi.spyOn(nodeConsole, 'error').mockImplementation((...args: unknown[]) => {
    if (!String(args[0]).includes('Iframe page loading is disabled')) reportError(...args);
  });
});

afterAll(() => server.close());

beforeEach(() => {
  launches = 0;
  server.respondWith(
    graphqlResponder([
      respond(LauncherAppQuery, { data: { app: { __typename: 'App', id: 'app_1', name: 'Quiz Time' }, me: { __typename: 'Viewer', id: 'usr_42', locale: 'en', theme: 'light' } } }),
      respond(LaunchApp, () => ((launches += 1), { data: { launchApp: { ...launchFields, token: `token-${launches}` } } })),
    ]),
  );
  // Only the launcher's own clock is faked, so a test decides exactly when 500 ms or 15 s have passed.
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
});

afterEach(() => {
  cleanup();
  vi.useRealTimers();
  server.requests.length = 0;
});

/** Lets the real HTTP exchange and React finish (without moving the fake clock) until `ready` holds. */
async function settle<T>(ready: () => T | null | undefined, what: string): Promise<T> {
  for (let waited = 0; waited < 5000; waited += 10) {
    const value = ready();
    if (value) return value;
    await act(async () => {
      await vi.advanceTimersByTimeAsync(0);
      await new Promise((resolve) => realSetTimeout(resolve, 10));
    });
  }
  throw new Error(`gave up waiting for ${what}`);
}

const advance = (ms: number) => act(() => vi.advanceTimersByTimeAsync(ms));

/** Renders the launcher and loads its iframe; a stand-in window records what the launcher posts to the app. */
async function openLauncher() {
  render(
    <ApolloProvider client={createApolloClient()}>
      <AppLauncher appId="app_1" locale="vi" theme="dark" />
    </ApolloProvider>,
  );
  return loadFrame();
}

async function loadFrame() {
  const frame = await settle(() => screen.queryByTitle<HTMLIFrameElement>('Quiz Time'), 'the app iframe');
  const posted: { message: unknown; targetOrigin: string }[] = [];
  const appWindow = { postMessage: (message: unknown, targetOrigin: string) => void posted.push({ message, targetOrigin }) };
  Object.defineProperty(frame, 'contentWindow', { configurable: true, get: () => appWindow });
  fireEvent.load(frame);
  return { frame, appWindow, posted };
}

function postToLauncher(data: unknown, origin: string, source: unknown) {
  act(() => void window.dispatchEvent(new MessageEvent('message', { data, origin, source: source as Window })));
}

const launchRequests = () => server.requests.filter((request) => request.body.includes('"operationName":"LaunchApp"'));

describe('AppLauncher', () => {
  it("loads the App URL in a sandboxed frame and posts INIT_SESSION only to the app's origin until APP_READY", async () => {
    const { frame, appWindow, posted } = await openLauncher();

    expect(frame.getAttribute('src')).toBe(`${APP_ORIGIN}/play`);
    expect(frame.getAttribute('sandbox')).toBe('allow-scripts allow-same-origin allow-forms allow-popups');
    expect(JSON.parse(launchRequests()[0]!.body).variables).toEqual({ appId: 'app_1', locale: 'vi', theme: 'dark' });
    expect(posted).toEqual([{ message: { type: 'INIT_SESSION', token: 'token-1', userId: 'usr_42', locale: 'vi', theme: 'dark' }, targetOrigin: APP_ORIGIN }]);

    await advance(2 * INIT_SESSION_RESEND_MS);
    expect(posted).toHaveLength(3);
    expect(posted.every(({ targetOrigin }) => targetOrigin === APP_ORIGIN)).toBe(true);

    postToLauncher({ type: 'APP_READY' }, APP_ORIGIN, appWindow);
    expect(screen.getByRole('status').textContent).toBe('Quiz Time đã mở.');
    await advance(APP_READY_TIMEOUT_MS);
    expect(posted).toHaveLength(3);
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it("speaks the person's language, applies their theme and covers the frame with a spinner until APP_READY", async () => {
    const { appWindow } = await openLauncher();

    expect(document.documentElement.dataset.theme).toBe('dark');
    expect(document.documentElement.lang).toBe('vi');
    expect(screen.getByRole('link', { name: '← Quay lại Plaza' }).getAttribute('href')).toBe('/');
    expect(document.querySelector('.launcher-waiting .launcher-spinner')).not.toBeNull();

    postToLauncher({ type: 'APP_READY' }, APP_ORIGIN, appWindow);
    expect(document.querySelector('.launcher-waiting')).toBeNull();
    expect(screen.getByTitle('Quiz Time')).toBeTruthy();
  });

  it('ignores APP_READY from another origin or another window', async () => {
    const { appWindow, posted } = await openLauncher();

    postToLauncher({ type: 'APP_READY' }, 'https://evil.example', appWindow);
    postToLauncher({ type: 'APP_READY' }, APP_ORIGIN, window);
    postToLauncher({ type: 'APP_READY' }, APP_ORIGIN, null);
    postToLauncher({ type: 'SOMETHING_ELSE' }, APP_ORIGIN, appWindow);
    await advance(INIT_SESSION_RESEND_MS);

    expect(posted).toHaveLength(2); // still re-sending: none of those counted as the app's answer
    expect(screen.getByRole('status').textContent).toBe('Đang chờ Quiz Time phản hồi…');
    await advance(APP_READY_TIMEOUT_MS);
    expect(screen.getByRole('alert').textContent).toContain('Quiz Time không phản hồi');
  });

  it('tells the user after 15 s without APP_READY, and Retry launches again with a new token', async () => {
    const { posted } = await openLauncher();

    await advance(APP_READY_TIMEOUT_MS - 1);
    expect(screen.queryByRole('alert')).toBeNull();
    await advance(1);

    const alert = screen.getByRole('alert');
    expect(alert.textContent).toContain('Quiz Time không phản hồi trong 15 giây.');
    const retry = screen.getByRole('button', { name: 'Thử lại' });
    expect(document.activeElement).toBe(retry);
    expect(screen.queryByTitle('Quiz Time')).toBeNull();
    const sentBeforeFailure = posted.length;
    await advance(5 * INIT_SESSION_RESEND_MS);
    expect(posted).toHaveLength(sentBeforeFailure); // the failed attempt stopped sending

    fireEvent.click(retry);

    const second = await loadFrame();
    expect(launchRequests()).toHaveLength(2);
    expect(second.posted[0]).toEqual({ message: expect.objectContaining({ type: 'INIT_SESSION', token: 'token-2' }), targetOrigin: APP_ORIGIN });
    expect(screen.queryByRole('alert')).toBeNull();
    postToLauncher({ type: 'APP_READY' }, APP_ORIGIN, second.appWindow);
    expect(screen.getByRole('status').textContent).toBe('Quiz Time đã mở.');
  });
});
