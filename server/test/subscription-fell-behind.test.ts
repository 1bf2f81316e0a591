import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { FELL_BEHIND_CLOSE_CODE, FrameOutbox } from '../src/platform/subscription-frames.js';

const servers: Server[] = [];
const peers: Socket[] = [];
afterAll(async () => {
  for (const peer of peers) peer.destroy();
  await Promise.all(servers.map((server) => new Promise((done) => server.close(done))));
});

/** A real WebSocket whose peer completes the handshake and then reads nothing, as a hostile subscriber may. */
async function socketToSilentPeer(): Promise<WebSocket> {
  const http = createServer();
  servers.push(http);
  const wss = new WebSocketServer({ server: http });
  const accepted = new Promise<WebSocket>((resolve) => wss.once('connection', resolve));
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as { port: number };
  const peer = connect(port, '127.0.0.1');
  peers.push(peer);
  peer.write(
    `GET / HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
      `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
  );
  await new Promise<void>((resolve) => peer.once('data', () => resolve()));
  peer.pause(); // From here on it reads nothing.
  return accepted;
}

describe('a subscriber that stops reading', () => {
  it('is closed once it falls too far behind, instead of the server holding every later update for it', async () => {
    const socket = await socketToSilentPeer();
    const limit = 256 * 1024;
    const outbox = new FrameOutbox(limit);
    const closed = new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)));
    const frame = JSON.stringify({ type: 'next', id: '1', payload: { data: { padding: 'x'.repeat(64 * 1024) } } });

    // Up to 100 MiB of updates, one burst at a time, for as long as the socket stays open.
    let bursts = 0;
    while (socket.readyState === WebSocket.OPEN && bursts < 1600) {
      outbox.push(socket, frame);
      await new Promise((resolve) => setImmediate(resolve));
      bursts += 1;
    }
    expect(socket.readyState).not.toBe(WebSocket.OPEN);
    // What it holds is bounded by the limit and the socket's own buffers, far below what was offered.
    expect(socket.bufferedAmount).toBeLessThan(limit + 8 * 1024 * 1024);
    expect(bursts).toBeLessThan(1600);
    // The close frame cannot reach a peer that reads nothing: the connection ends after its grace.
    expect(await closed).toBeOneOf([FELL_BEHIND_CLOSE_CODE, 1006]);
  }, 30_000);
});
