import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import type { AtLeast } from './lists.js';

export interface GraphQLErrorBody {
  message: string;
  extensions?: { code?: string; field?: string };
}
export interface GraphQLResponse<T> {
  status: number;
  data?: T | null;
  errors?: GraphQLErrorBody[];
}

/** Speaks GraphQL to a running Plaza over real HTTP, as a client of the contract would. */
export class GraphQLTestClient {
  constructor(
    readonly baseUrl: string,
    readonly token?: string,
    readonly user?: { id: string; email: string; roles: string[] },
  ) {}

  static async signIn(baseUrl: string, email: string): Promise<GraphQLTestClient> {
    const response = await fetch(`${baseUrl}/auth/dev/sign-in`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email }) });
    if (response.status !== 200) throw new Error(`dev sign-in answered ${response.status}: ${await response.text()}`);
    const body = (await response.json()) as { token: string; user: { id: string; email: string; roles: string[] } };
    return new GraphQLTestClient(baseUrl, body.token, body.user);
  }

  withToken(token: string): GraphQLTestClient {
    return new GraphQLTestClient(this.baseUrl, token, this.user);
  }

  get userId(): string {
    if (!this.user) throw new Error('anonymous client has no user');
    return this.user.id;
  }

  async request<T = Record<string, any>>(query: string, variables?: Record<string, unknown>): Promise<GraphQLResponse<T>> {
    const response = await fetch(`${this.baseUrl}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(this.token ? { authorization: `Bearer ${this.token}` } : {}) },
      body: JSON.stringify({ query, variables }),
    });
    const body = (await response.json()) as GraphQLResponse<T>;
    return { ...body, status: response.status };
  }

  /** The data of a request that must succeed; fails the test with the server's errors otherwise. */
  async ok<T = Record<string, any>>(query: string, variables?: Record<string, unknown>): Promise<T> {
    const result = await this.request<T>(query, variables);
    if (result.errors?.length || !result.data) throw new Error(`expected success, got ${JSON.stringify(result.errors)}`);
    return result.data;
  }

  /** The single error of a request that must fail. */
  async error(query: string, variables?: Record<string, unknown>): Promise<GraphQLErrorBody> {
    const result = await this.request(query, variables);
    const [error] = result.errors ?? [];
    if (!error) throw new Error(`expected an error, got ${JSON.stringify(result.data)}`);
    return error;
  }

  /** A real graphql-ws connection authenticated like the portal's. */
  websocket(): Client {
    return createClient({
      url: `${this.baseUrl.replace(/^http/, 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: this.token ? { authorization: `Bearer ${this.token}` } : {},
      retryAttempts: 0,
      lazy: true,
    });
  }
}

/** Collects the events of one subscription so a test can wait for the next one. */
export function subscribe<T>(client: Client, query: string, variables?: Record<string, unknown>) {
  const received: T[] = [];
  const waiters: (() => void)[] = [];
  let failure: unknown;
  const stop = client.subscribe<T>(
    { query, variables },
    {
      next: (value) => {
        if (value.errors?.length) failure = value.errors;
        else received.push(value.data as T);
        waiters.splice(0).forEach((w) => w());
      },
      error: (err) => {
        // graphql-ws reports a refused connection as a CloseEvent, whose fields do not survive JSON.stringify.
        const close = err as { code?: number; reason?: string };
        failure = typeof close.code === 'number' ? `closed ${close.code} ${close.reason ?? ''}` : err;
        waiters.splice(0).forEach((w) => w());
      },
      complete: () => undefined,
    },
  );
  return {
    received,
    stop,
    /** Resolves when `count` events have arrived; rejects on a subscription error or after `timeoutMs`. */
    async waitFor<N extends number>(count: N, timeoutMs = 5000): Promise<AtLeast<N, T>> {
      const deadline = Date.now() + timeoutMs;
      while (received.length < count) {
        if (failure) throw new Error(`subscription failed: ${JSON.stringify(failure)}`);
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`only ${received.length} of ${count} subscription events arrived within ${timeoutMs} ms`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, left);
        });
      }
      // The loop above ends only once there are `count`.
      return received.slice(0, count) as AtLeast<N, T>;
    },
  };
}
