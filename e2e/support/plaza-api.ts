/** Speaks to a running Plaza over HTTP for the setup a test needs (what portal screens would do). */
export class PlazaApi {
  private constructor(
    readonly origin: string,
    readonly userId: string,
    readonly email: string,
    private readonly token: string,
  ) {}

  /** Development sign-in; the account (and its stable user id) is created on first sign-in. */
  static async signIn(origin: string, email: string): Promise<PlazaApi> {
    const response = await fetch(`${origin}/auth/dev/sign-in`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email }) });
    if (!response.ok) throw new Error(`dev sign-in of ${email} answered ${response.status}: ${await response.text()}`);
    const { token, user } = (await response.json()) as { token: string; user: { id: string } };
    return new PlazaApi(origin, user.id, email, token);
  }

  /** The data of an operation that must succeed. */
  async ok<T>(query: string, variables: Record<string, unknown> = {}): Promise<T> {
    const response = await fetch(`${this.origin}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${this.token}` },
      body: JSON.stringify({ query, variables }),
    });
    const body = (await response.json()) as { data?: T; errors?: unknown[] };
    if (body.errors?.length || !body.data) throw new Error(`${this.email}: ${query.trim().split('\n')[0]} failed: ${JSON.stringify(body.errors)}`);
    return body.data;
  }
}

export interface AppListing {
  name: string;
  appUrl: string;
  webhookUrl?: string;
  pricePoints?: number;
}

/** Submits the app as `developer` and has `reviewer` approve it; returns the app id. */
export async function publishApp(developer: PlazaApi, reviewer: PlazaApi, listing: AppListing): Promise<string> {
  const { submitApp } = await developer.ok<{ submitApp: { id: string } }>(`mutation Submit($input: SubmitAppInput!) { submitApp(input: $input) { id } }`, {
    input: {
      name: listing.name,
      shortDescription: `${listing.name}, opened from Plaza in the end-to-end tests`,
      iconUrl: new URL('/assets/icon.png', listing.appUrl).href,
      appUrl: listing.appUrl,
      category: 'productivity',
      pricing: listing.pricePoints ? 'PAID' : 'FREE',
      pricePoints: listing.pricePoints ?? null,
      webhookUrl: listing.webhookUrl ?? null,
    },
  });
  await reviewer.ok(`mutation Approve($appId: ID!) { decideReview(input: { appId: $appId, outcome: APPROVED }) { id } }`, { appId: submitApp.id });
  return submitApp.id;
}

/** Submits (not yet reviewed) a free app as `developer` whose webhooks go to `webhookUrl`; returns the app id. */
export async function submitWebhookApp(developer: PlazaApi, name: string, webhookUrl: string): Promise<string> {
  const { submitApp } = await developer.ok<{ submitApp: { id: string } }>(`mutation Submit($input: SubmitAppInput!) { submitApp(input: $input) { id } }`, {
    input: {
      name,
      shortDescription: 'Sends webhooks to a receiver that fails',
      iconUrl: 'https://hooks.example/icon.png',
      appUrl: 'https://hooks.example/',
      category: 'utilities',
      pricing: 'FREE',
      webhookUrl,
    },
  });
  return submitApp.id;
}

/** Sends the app's test webhook as `developer`; returns the delivery id. */
export async function sendTestWebhook(developer: PlazaApi, appId: string): Promise<string> {
  const { sendTestWebhook } = await developer.ok<{ sendTestWebhook: { id: string } }>(`mutation Test($appId: ID!) { sendTestWebhook(appId: $appId) { id } }`, { appId });
  return sendTestWebhook.id;
}
