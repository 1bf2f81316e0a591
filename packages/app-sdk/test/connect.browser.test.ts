// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type PlatformSession, PlatformConnectionError, connectToPlatform } from '../src/browser/index.js';

const platformOrigin = 'https://plaza.example';
const allowedOrigins = [platformOrigin];
const initSession = { type: 'INIT_SESSION', token: 'header.payload.signature', userId: 'usr_42', locale: 'vi', theme: 'dark' };

/** The platform side of the boundary: a parent window that records what the app posts to it. */
function recordingParent() {
  const posted: { message: unknown; targetOrigin: string }[] = [];
  const parent = {
    postMessage(message: unknown, targetOrigin: string) {
      posted.push({ message, targetOrigin });
    },
  } as unknown as Window;
  return { parent, posted };
}

let parent: Window;
let posted: ReturnType<typeof recordingParent>['posted'];
const ownParent = Object.getOwnPropertyDescriptor(window, 'parent');

function setParent(value: unknown) {
  Object.defineProperty(window, 'parent', { value, configurable: true });
}

beforeEach(() => {
  ({ parent, posted } = recordingParent());
  setParent(parent);
});
afterEach(() => {
  if (ownParent) Object.defineProperty(window, 'parent', ownParent);
  else delete (window as { parent?: unknown }).parent;
});

function deliver(data: unknown, { origin = platformOrigin, source = parent as MessageEventSource | null } = {}) {
  window.dispatchEvent(new MessageEvent('message', { data, origin, source }));
}

/**
 * A valid INIT_SESSION told apart by its token, delivered after the messages under test. Messages are
 * handled one by one in the order they are dispatched, so if the connection resolves with this one, none
 * of those before it was taken (it settles once), and what it posted is all that was posted.
 */
const witness = { ...initSession, token: 'witness.payload.signature' };

describe('connectToPlatform', () => {
  it('resolves with the session from a valid INIT_SESSION and answers APP_READY to that origin only', async () => {
    const connecting = connectToPlatform({ allowedOrigins });
    deliver(initSession);

    const expected: PlatformSession = { token: 'header.payload.signature', userId: 'usr_42', locale: 'vi', theme: 'dark', platformOrigin };
    await expect(connecting).resolves.toEqual(expected);
    expect(posted).toEqual([{ message: { type: 'APP_READY' }, targetOrigin: platformOrigin }]);
  });

  it('answers a subdomain of an allowed origin with that exact subdomain, never "*"', async () => {
    const connecting = connectToPlatform({ allowedOrigins });
    deliver(initSession, { origin: 'https://apps.plaza.example' });
    await expect(connecting).resolves.toMatchObject({ platformOrigin: 'https://apps.plaza.example' });
    expect(posted.map(({ targetOrigin }) => targetOrigin)).toEqual(['https://apps.plaza.example']);
  });

  it('ignores INIT_SESSION from origins that are not allowed, and keeps waiting', async () => {
    const connecting = connectToPlatform({ allowedOrigins });
    for (const origin of [
      'https://evil.example',
      'https://plaza.example.evil.com',
      'https://evilplaza.example',
      'http://plaza.example',
      'https://plaza.example:8443',
      'null',
      '',
    ]) {
      deliver(initSession, { origin });
    }
    deliver(witness);
    await expect(connecting).resolves.toMatchObject({ token: witness.token, platformOrigin });
    expect(posted).toEqual([{ message: { type: 'APP_READY' }, targetOrigin: platformOrigin }]);
  });

  it('ignores INIT_SESSION from the right origin but another window (a popup or sibling frame)', async () => {
    const connecting = connectToPlatform({ allowedOrigins });
    const sibling = recordingParent().parent;
    deliver(initSession, { source: sibling });
    deliver(initSession, { source: window });
    deliver(initSession, { source: null });
    deliver(witness);
    await expect(connecting).resolves.toMatchObject({ token: witness.token });
    expect(posted).toEqual([{ message: { type: 'APP_READY' }, targetOrigin: platformOrigin }]);
  });

  it('ignores malformed messages from the platform', async () => {
    const connecting = connectToPlatform({ allowedOrigins });
    for (const data of [
      null,
      'INIT_SESSION',
      JSON.stringify(initSession),
      { type: 'APP_READY' },
      { ...initSession, type: 'init_session' },
      { ...initSession, token: '' },
      { ...initSession, token: 42 },
      { ...initSession, userId: undefined },
      { ...initSession, locale: null },
      { type: 'INIT_SESSION' },
    ]) {
      deliver(data);
    }
    deliver(witness);
    await expect(connecting).resolves.toMatchObject({ token: witness.token });
    expect(posted).toEqual([{ message: { type: 'APP_READY' }, targetOrigin: platformOrigin }]);
  });

  it('rejects with a clear TIMEOUT error when no valid INIT_SESSION arrives, and stops listening', async () => {
    const connecting = connectToPlatform({ allowedOrigins, timeoutMs: 30 });
    const error = await connecting.catch((reason: unknown) => reason);

    expect(error).toBeInstanceOf(PlatformConnectionError);
    expect(error).toMatchObject({ code: 'TIMEOUT', message: expect.stringContaining('No INIT_SESSION from https://plaza.example within 30 ms') });
    deliver(initSession);
    expect(posted).toEqual([]);
  });

  it('stops listening once resolved', async () => {
    const connecting = connectToPlatform({ allowedOrigins });
    deliver(initSession);
    await connecting;
    deliver({ ...initSession, token: 'second' });
    expect(posted).toHaveLength(1);
  });

  it('with onSession, passes later sessions from the same origin (token refresh) until aborted', async () => {
    const refreshed: PlatformSession[] = [];
    const stop = new AbortController();
    const connecting = connectToPlatform({ allowedOrigins, onSession: (session) => refreshed.push(session), signal: stop.signal });
    deliver(initSession);
    await connecting;

    deliver({ ...initSession, token: 'refreshed' });
    // Another allowed origin cannot take over an established session.
    deliver({ ...initSession, token: 'from-a-subdomain' }, { origin: 'https://other.plaza.example' });
    expect(refreshed.map(({ token }) => token)).toEqual(['refreshed']);
    expect(posted).toHaveLength(2);

    stop.abort();
    deliver({ ...initSession, token: 'after-abort' });
    expect(refreshed).toHaveLength(1);
  });

  it('rejects with ABORTED when aborted before a session arrives', async () => {
    const stop = new AbortController();
    const connecting = connectToPlatform({ allowedOrigins, signal: stop.signal });
    stop.abort();
    await expect(connecting).rejects.toMatchObject({ code: 'ABORTED' });
  });

  it('rejects at once with NOT_EMBEDDED when the page is not in a frame', async () => {
    // A top-level page is its own parent.
    setParent(window);
    await expect(connectToPlatform({ allowedOrigins })).rejects.toMatchObject({ code: 'NOT_EMBEDDED' });
  });

  it('refuses malformed allowedOrigins up front, naming them', () => {
    expect(() => connectToPlatform({ allowedOrigins: [] })).toThrow(/allowedOrigins/);
    expect(() => connectToPlatform({ allowedOrigins: ['plaza.example', '*'] })).toThrow(/"plaza.example", "\*"/);
  });

  it('works with an explicitly passed window', async () => {
    const listeners = new Set<(event: MessageEvent) => void>();
    const fakeWindow = {
      parent,
      addEventListener: (_type: string, listener: (event: MessageEvent) => void) => listeners.add(listener),
      removeEventListener: (_type: string, listener: (event: MessageEvent) => void) => listeners.delete(listener),
    } as unknown as Window;
    const connecting = connectToPlatform({ allowedOrigins, window: fakeWindow });
    for (const listener of listeners) listener(new MessageEvent('message', { data: initSession, origin: platformOrigin, source: parent as MessageEventSource }));
    await expect(connecting).resolves.toMatchObject({ userId: 'usr_42' });
    expect(listeners.size).toBe(0);
  });
});
