import type { Page } from 'playwright-core';

/**
 * What a page did to reach Plaza while a test watched it: its live sockets (opened, answered, failed, closed)
 * and its /healthz probes (answered or failed, and why), each with the milliseconds since tracing began. A
 * test that waits for a page to notice Plaza is back attaches it to its failure, so a page that did not notice
 * says whether its socket never connected, connected and dropped, or its probes never got an answer.
 */
export interface ConnectionTrace {
  /** Runs `wait`; if it fails, fails with its message followed by the trace. */
  explaining<T>(wait: () => Promise<T>): Promise<T>;
}

export function traceConnection(page: Page, name: string): ConnectionTrace {
  const started = Date.now();
  const lines: string[] = [];
  const note = (line: string) => lines.push(`${Date.now() - started} ms ${line}`);
  page.on('websocket', (socket) => {
    note(`socket opening ${socket.url()}`);
    socket.on('framereceived', (frame) => {
      // graphql-ws's own messages name their type first; updates are left out, only the handshake and errors matter.
      const type = /"type":"([a-z_]+)"/.exec(String(frame.payload))?.[1];
      if (type !== 'next') note(`socket received ${type ?? 'a frame'}`);
    });
    socket.on('socketerror', (error) => note(`socket error: ${error}`));
    socket.on('close', () => note('socket closed'));
  });
  const isProbe = (url: string) => new URL(url).pathname === '/healthz';
  page.on('requestfinished', (request) => {
    // A finished request's response is there already: the promise resolves, it does not fail.
    if (isProbe(request.url())) void request.response().then((response) => note(`probe answered ${response?.status() ?? '?'}`));
  });
  page.on('requestfailed', (request) => {
    if (isProbe(request.url())) note(`probe failed: ${request.failure()?.errorText ?? 'no reason'}`);
  });
  return {
    async explaining(wait) {
      try {
        return await wait();
      } catch (err) {
        const error = err as Error;
        error.message += `\n${name}'s connection to Plaza, since tracing began:\n  ${lines.join('\n  ')}`;
        throw error;
      }
    },
  };
}
