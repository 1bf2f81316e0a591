import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { PubSub } from 'type-graphql';
import type { EntityManager } from 'typeorm';
import { listenContinuously, type ListenConnection } from './listen-connection.js';
import { logger } from './logger.js';

/** Every live topic, with the id that routes it (graphql-ws subscribers listen to one id each). */
export const Topic = {
  NOTIFICATION_ADDED: 'NOTIFICATION_ADDED', // routed by user id
  WEBHOOK_DELIVERY_UPDATED: 'WEBHOOK_DELIVERY_UPDATED', // routed by app id
  WEBHOOK_TEST_TRIGGERED: 'WEBHOOK_TEST_TRIGGERED', // routed by app id: plaza trigger's sample events, for listening CLI sessions only
  CREDENTIAL_REVOKED: 'CREDENTIAL_REVOKED', // routed by session or API token id: its WebSockets close on every process
  ROLES_REVOKED: 'ROLES_REVOKED', // routed by user id: the user's signed-in WebSockets close on every process, so none keeps a revoked role
} as const;
export type Topic = (typeof Topic)[keyof typeof Topic];

/** Topics each signed-in socket listens on for its own sake (to close when revoked), not subscriptions. */
const CONNECTION_LISTENER_TOPICS: readonly string[] = [Topic.CREDENTIAL_REVOKED, Topic.ROLES_REVOKED];

const CHANNEL = 'plaza_live';
/**
 * Notified by the database itself (triggers, migration CredentialNotices) with the id of an account whose
 * sessions, API tokens, roles or apps changed, or '*' for every account: what credential caches forget.
 */
const CREDENTIALS_CHANNEL = 'plaza_credentials';
/** The listen connection's application_name: how a process counts the others that listen (reachedEverywhere). */
const LISTENER_NAME = 'plaza live-update listener';
/** How long reachedEverywhere waits for every other listening process's answer. */
export const REACH_WINDOW_MS = 2_000;
/**
 * How often the listen connection is asked a question (`SELECT 1`), and how old the last answer may be while the
 * connection counts as listening. A connection whose peer vanished without a word (a failover behind a virtual IP,
 * a dropped NAT flow) looks open until TCP keepalive gives up, tens of seconds on, while the pool already writes to
 * another server: an answer proves that every notification committed before its question was delivered (they come
 * in order on the connection), so a change goes unheard at most LISTEN_PROOF_MAX_AGE_MS before `listening` says so.
 */
const LISTEN_PROOF_EVERY_MS = 500;
export const LISTEN_PROOF_MAX_AGE_MS = 2_000;
/** A question whether every process has heard all that committed before it (s: its id, f: the asking process), and an answer. */
type Reach = { s: string; f: string } | { sa: string; f: string };
// PostgreSQL refuses NOTIFY payloads of 8000 bytes or more; publishers send small payloads (ids, statuses).
const MAX_PAYLOAD_BYTES = 7900;

type Listener = (payload: unknown) => void;

/**
 * How long a count of listeners on every process waits for the other processes' answers (a NOTIFY there and
 * one back): under a load of 15-18 on 2 cores, answers came in 31-129 ms (cli-trigger-two-apis).
 */
export const CENSUS_WINDOW_MS = 500;
/** A count's question (q: its id, k: the route, f: the asking process) and an answer (a: the question's id, n: listeners there). */
type Census = { q: string; k: string; f: string } | { a: string; n: number; f: string };

/**
 * A live stream that can also hand its messages straight to one listener, in order, as they arrive: a
 * server with thousands of subscribers of one update then spends no promise and no async iteration on
 * each (platform/subscription-frames.ts). Its iterator's `return` still ends it.
 */
export const DIRECT = Symbol('plaza.pubsub.direct');
export interface DirectSource {
  [DIRECT](listener: Listener): void;
}
interface Message {
  k: string;
  p: unknown;
}

const routeKey = (topic: string, id: unknown) => (id === undefined || id === null ? topic : `${topic}:${String(id)}`);

/**
 * Live updates through PostgreSQL LISTEN/NOTIFY: a message published inside a transaction is
 * delivered only if that transaction commits, and it reaches subscribers on every server process.
 */
export class PostgresPubSub implements PubSub {
  private readonly listeners = new Map<string, Set<Listener>>();
  private connection: ListenConnection | undefined;
  /** This process, so it neither answers its own counts nor counts its answers twice. */
  private readonly self = randomUUID();
  /** Counts this process asked for and is collecting answers to: the listeners other processes reported. */
  private readonly censuses = new Map<string, { others: number }>();
  private readonly credentialListeners = new Set<(userId: string | null) => void>();
  /** reachedEverywhere's questions in flight: the processes that answered, and what wakes the asker once all did. */
  private readonly reaches = new Map<string, { answered: Set<string>; expected: number; wake: () => void }>();
  /** When the question last answered on the listen connection was asked (performance.now()), and the prover's timer. */
  private provenAt = 0;
  /** The connection a question is out on: a new connection is asked at once, though the old one never answers. */
  private provingOn: unknown;
  private prover: NodeJS.Timeout | undefined;

  private constructor(private readonly databaseUrl: string) {}

  static async connect(databaseUrl: string): Promise<PostgresPubSub> {
    const pubSub = new PostgresPubSub(databaseUrl);
    await pubSub.listen();
    return pubSub;
  }

  private async listen(): Promise<void> {
    // Reconnects and LISTENs again after PostgreSQL restarts; updates published meanwhile are not replayed.
    this.connection = await listenContinuously({
      databaseUrl: this.databaseUrl,
      channels: [CHANNEL, CREDENTIALS_CHANNEL],
      purpose: 'live-update listener',
      applicationName: LISTENER_NAME,
      onNotification: (message) => (message.channel === CREDENTIALS_CHANNEL ? this.credentialsChanged(message.payload ?? '*') : this.dispatch(message.payload)),
      // Whatever changed while nothing listened went unheard: every account's may have.
      onReconnected: () => {
        this.provenAt = performance.now();
        this.credentialsChanged(null);
      },
    });
    this.provenAt = performance.now();
    this.prover = setInterval(() => this.prove(), LISTEN_PROOF_EVERY_MS).unref();
  }

  /** Asks the listen connection a question; its answer proves that what committed before it was heard. */
  private prove(): void {
    const client = this.connection?.client;
    if (!client || this.provingOn === client) return;
    this.provingOn = client;
    const askedAt = performance.now();
    // Never rejects: a failed question is handled below (the connection's failure is listenContinuously's to log).
    void client
      .query('SELECT 1')
      .then(
        () => {
          if (this.connection?.client === client) this.provenAt = Math.max(this.provenAt, askedAt);
        },
        // A connection that failed is reconnected by listenContinuously; until then nothing is proven.
        () => undefined,
      )
      .finally(() => {
        if (this.provingOn === client) this.provingOn = undefined;
      });
  }

  /**
   * True while the connection LISTENs and has answered a question asked less than LISTEN_PROOF_MAX_AGE_MS ago, so
   * every committed change of credentials is heard; a cache of them must not be trusted otherwise (a change
   * committed meanwhile is never told again).
   */
  get listening(): boolean {
    return this.connection?.client !== undefined && performance.now() - this.provenAt < LISTEN_PROOF_MAX_AGE_MS;
  }

  /**
   * Calls `listener` with the id of each account whose credentials changed as soon as the change commits, on every
   * process: '*' for every account, null after the connection was down (changes may have gone unheard). Synchronous
   * from the notification's arrival, so a request read after it never sees what it replaced.
   */
  onCredentialsChanged(listener: (userId: string | null) => void): () => void {
    this.credentialListeners.add(listener);
    return () => this.credentialListeners.delete(listener);
  }

  private credentialsChanged(userId: string | null): void {
    for (const listener of this.credentialListeners) listener(userId);
  }

  /**
   * Resolves true once every other process listening on this database has heard every notification committed
   * before the call (a credential's change among them: their caches forgot it), false after `windowMs` without all
   * answers. Notifications reach a connection in commit order, so a process that answers this question, sent
   * after the change committed, had handled the change first. The processes are counted by their listen
   * connections' application_name; a release before this one does not answer and is waited for in vain (it keeps
   * no credentials, so nothing is lost but the wait).
   */
  async reachedEverywhere(windowMs = REACH_WINDOW_MS): Promise<boolean> {
    const client = this.connection?.client;
    if (!client) return false;
    const question = randomUUID();
    try {
      const { rows } = await client.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1 AND datname = current_database() AND pid <> pg_backend_pid()',
        [LISTENER_NAME],
      );
      const expected = rows[0]?.n ?? 0;
      if (expected === 0) return true;
      let timer: NodeJS.Timeout | undefined;
      const all = new Promise<boolean>((resolve) => {
        this.reaches.set(question, { answered: new Set(), expected, wake: () => resolve(true) });
        timer = setTimeout(() => resolve(false), windowMs);
      });
      await client.query('SELECT pg_notify($1, $2)', [CHANNEL, JSON.stringify({ s: question, f: this.self } satisfies Reach)]);
      const reached = await all;
      clearTimeout(timer);
      return reached;
    } catch (err) {
      logger.warn({ err }, 'other processes not asked whether they heard a change');
      return false;
    } finally {
      this.reaches.delete(question);
    }
  }

  private reach(message: Reach): void {
    if (message.f === this.self) return;
    if ('s' in message) {
      // Handled: a failure is logged below (`void` because the connection may be gone, leaving no promise).
      void this.connection?.client
        ?.query('SELECT pg_notify($1, $2)', [CHANNEL, JSON.stringify({ sa: message.s, f: this.self } satisfies Reach)])
        .catch((err) => logger.warn({ err }, 'question whether this process heard a change not answered'));
      return;
    }
    const asked = this.reaches.get(message.sa);
    if (!asked) return;
    asked.answered.add(message.f);
    if (asked.answered.size >= asked.expected) asked.wake();
  }

  private dispatch(raw: string | undefined): void {
    // A process nobody is subscribed on (a worker, an idle API) hears every update all the same: with
    // no listener at all there is nothing to route, so the payload is not even parsed.
    if (!raw) return;
    // Every process answers whether it heard what committed before, subscribed or not (reachedEverywhere).
    const reach = raw.startsWith('{"s":') || raw.startsWith('{"sa":');
    if (!reach && this.listeners.size === 0 && this.censuses.size === 0) return;
    let parsed: Message | { b: Message[] } | Census | Reach;
    try {
      parsed = JSON.parse(raw);
    } catch {
      return;
    }
    if ('s' in parsed || 'sa' in parsed) return this.reach(parsed);
    if ('q' in parsed || 'a' in parsed) return this.census(parsed);
    for (const message of 'b' in parsed ? parsed.b : [parsed]) {
      for (const listener of this.listeners.get(message.k) ?? []) listener(message.p);
      // Subscribers without an id hear every message of the topic.
      const topic = message.k.split(':', 1)[0] ?? message.k;
      if (topic !== message.k) for (const listener of this.listeners.get(topic) ?? []) listener(message.p);
    }
  }

  private encode(topic: Topic, id: unknown, payload: unknown): string {
    const text = JSON.stringify({ k: routeKey(topic, id), p: payload });
    if (Buffer.byteLength(text) > MAX_PAYLOAD_BYTES) throw new Error(`live update on ${topic} is too large for NOTIFY`);
    return text;
  }

  /**
   * Publishes many messages in one statement, packed several to a NOTIFY: the delivery engine reports
   * thousands of status changes a second, and one NOTIFY each would cost the database more than the work.
   */
  async publishManyIn(manager: EntityManager, topic: Topic, messages: { id: unknown; payload: unknown }[]): Promise<void> {
    if (messages.length === 0) return;
    const packed: string[] = [];
    let batch: string[] = [];
    let size = 10;
    for (const { id, payload } of messages) {
      const text = JSON.stringify({ k: routeKey(topic, id), p: payload });
      if (size + text.length + 1 > MAX_PAYLOAD_BYTES && batch.length) {
        packed.push(`{"b":[${batch.join(',')}]}`);
        batch = [];
        size = 10;
      }
      batch.push(text);
      size += Buffer.byteLength(text) + 1;
    }
    packed.push(`{"b":[${batch.join(',')}]}`);
    await manager.query('SELECT pg_notify($1, message) FROM unnest($2::text[]) AS message', [CHANNEL, packed]);
  }

  /** Publishes as part of `manager`'s transaction: subscribers hear of it only after it commits. */
  async publishIn(manager: EntityManager, topic: Topic, id: unknown, payload: unknown): Promise<void> {
    await manager.query('SELECT pg_notify($1, $2)', [CHANNEL, this.encode(topic, id, payload)]);
  }

  /** type-graphql's entry point; Plaza publishes through publishIn, so this is for ad-hoc use. */
  publish(routingKey: string, ...args: unknown[]): void {
    const [id, payload] = args;
    const client = this.connection?.client;
    if (!client) {
      logger.warn({ routingKey }, 'live update dropped: listener connection is down');
      return;
    }
    // Never rejects: a NOTIFY that fails is logged by its catch; the live update is lost, never the row it announces.
    void client.query('SELECT pg_notify($1, $2)', [CHANNEL, this.encode(routingKey as Topic, id, payload)]).catch((err) => logger.warn({ err }, 'live update not published'));
  }

  /** Calls `listener` with every message of `topic` routed to `id`, until the returned function is called. */
  addListener(topic: string, id: unknown, listener: Listener): () => void {
    const key = routeKey(topic, id);
    const set = this.listeners.get(key) ?? new Set();
    set.add(listener);
    this.listeners.set(key, set);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.listeners.get(key) === set) this.listeners.delete(key);
    };
  }

  subscribe(routingKey: string, dynamicId?: unknown): AsyncIterable<unknown> & DirectSource {
    const queue: unknown[] = [];
    let wake: (() => void) | undefined;
    let done = false;
    let direct: Listener | undefined;
    const removeListener = this.addListener(routingKey, dynamicId, (payload) => {
      if (direct) return direct(payload);
      queue.push(payload);
      wake?.();
    });
    const unsubscribe = () => {
      done = true;
      removeListener();
      wake?.();
    };
    return {
      [Symbol.asyncIterator]: () => ({
        next: async (): Promise<IteratorResult<unknown>> => {
          while (!done && queue.length === 0) await new Promise<void>((resolve) => (wake = resolve));
          wake = undefined;
          if (queue.length) return { value: queue.shift(), done: false };
          return { value: undefined, done: true };
        },
        return: async (): Promise<IteratorResult<unknown>> => {
          unsubscribe();
          return { value: undefined, done: true };
        },
      }),
      [DIRECT]: (listener: Listener) => {
        direct = listener;
        for (const payload of queue.splice(0)) listener(payload);
      },
    };
  }

  /** Listeners in this process of `topic` routed to `id`. */
  listenersOf(topic: Topic, id: unknown): number {
    return this.listeners.get(routeKey(topic, id))?.size ?? 0;
  }

  /**
   * Listeners of `topic` routed to `id` on every process (plaza trigger's count of the listen sessions it
   * reached, which may be on another API process behind a load balancer): this process's own, plus what the
   * others answer within `windowMs` to a question sent through the same NOTIFY channel. A process with no such
   * listener does not answer.
   */
  async listenersEverywhere(topic: Topic, id: unknown, windowMs = CENSUS_WINDOW_MS): Promise<number> {
    const local = this.listenersOf(topic, id);
    const client = this.connection?.client;
    if (!client) return local;
    const question = randomUUID();
    const tally = { others: 0 };
    this.censuses.set(question, tally);
    try {
      await client.query('SELECT pg_notify($1, $2)', [CHANNEL, JSON.stringify({ q: question, k: routeKey(topic, id), f: this.self } satisfies Census)]);
      await sleep(windowMs);
      return local + tally.others;
    } catch (err) {
      logger.warn({ err }, 'listeners on other processes not counted');
      return local + tally.others;
    } finally {
      this.censuses.delete(question);
    }
  }

  private census(message: Census): void {
    if (message.f === this.self) return;
    if ('q' in message) {
      const here = this.listeners.get(message.k)?.size ?? 0;
      if (here === 0) return;
      // Handled: a failure is logged below (`void` because the connection may be gone, leaving no promise).
      void this.connection?.client
        ?.query('SELECT pg_notify($1, $2)', [CHANNEL, JSON.stringify({ a: message.q, n: here, f: this.self } satisfies Census)])
        .catch((err) => logger.warn({ err }, 'listener count not answered'));
      return;
    }
    const tally = this.censuses.get(message.a);
    if (tally) tally.others += message.n;
  }

  /** Live GraphQL subscriptions in this process (for metrics and tests): the per-socket revocation listeners are not subscriptions anyone asked for. */
  get subscriptionCount(): number {
    let count = 0;
    for (const [key, set] of this.listeners) if (!CONNECTION_LISTENER_TOPICS.some((topic) => key.startsWith(topic))) count += set.size;
    return count;
  }

  /** Every listener in this process, sockets' revocation listeners included: 0 once every socket has closed (tests). */
  get listenerCount(): number {
    let count = 0;
    for (const set of this.listeners.values()) count += set.size;
    return count;
  }

  async close(): Promise<void> {
    clearInterval(this.prover);
    await this.connection?.close();
  }
}
