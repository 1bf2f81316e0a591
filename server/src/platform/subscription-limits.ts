import { ErrorCode, PlazaError } from './errors.js';

/**
 * Live subscriptions one WebSocket may hold. A live subscription costs the server about 5 kB of heap
 * (its listener, execution arguments and frame target: 10,000 took 52 MB); a client needs a handful.
 */
export const MAX_SUBSCRIPTIONS_PER_SOCKET = 100;

/** What one socket holds: the ids of its subscriptions, and whether it counts among its account's sockets. */
export interface SocketSubscriptions {
  readonly accountId: string;
  readonly ids: Set<string>;
  countsForAccount: boolean;
}

/**
 * Subscriptions per socket, and sockets with subscriptions per account across all of its sessions and API
 * tokens (WEBSOCKETS_PER_ACCOUNT, 20 by default: 2,000 live subscriptions per account). Per process: N API
 * processes behind a load balancer allow an account N times as many sockets. A socket takes one of its
 * account's places with its first subscription (a socket that only connects holds none) and gives it back
 * when it closes.
 */
export class SubscriptionLimits {
  private readonly socketsByAccount = new Map<string, number>();

  constructor(
    private readonly perAccount: number,
    private readonly perSocket = MAX_SUBSCRIPTIONS_PER_SOCKET,
  ) {}

  socket(accountId: string): SocketSubscriptions {
    return { accountId, ids: new Set(), countsForAccount: false };
  }

  /**
   * Admits subscription `id` on `socket`, or throws RATE_LIMITED. `running(id)` says whether an earlier
   * subscription of the socket still runs (graphql-ws forgets those that ended): those that do not are
   * forgotten here too, so the count needs no hook on every way a subscription can end.
   */
  admit(socket: SocketSubscriptions, id: string, running: (id: string) => boolean): void {
    for (const held of socket.ids) if (!running(held)) socket.ids.delete(held);
    if (socket.ids.size >= this.perSocket) {
      throw limited(`This connection already has ${this.perSocket} live subscriptions; complete one first, or open another connection`);
    }
    if (!socket.countsForAccount) {
      const sockets = this.socketsByAccount.get(socket.accountId) ?? 0;
      if (sockets >= this.perAccount) {
        throw limited(`This account already has ${this.perAccount} live connections with subscriptions; close one first`);
      }
      this.socketsByAccount.set(socket.accountId, sockets + 1);
      socket.countsForAccount = true;
    }
    socket.ids.add(id);
  }

  /** The socket closed: its place goes back to its account. */
  release(socket: SocketSubscriptions): void {
    socket.ids.clear();
    if (!socket.countsForAccount) return;
    socket.countsForAccount = false;
    const sockets = (this.socketsByAccount.get(socket.accountId) ?? 1) - 1;
    if (sockets > 0) this.socketsByAccount.set(socket.accountId, sockets);
    else this.socketsByAccount.delete(socket.accountId);
  }

  /** Accounts holding at least one socket with subscriptions (tests, metrics): 0 once every socket has closed. */
  get accounts(): number {
    return this.socketsByAccount.size;
  }
}

const limited = (message: string) => new PlazaError(ErrorCode.RATE_LIMITED, message);
