import { PlazaApi, requireSignInToken } from '../api.js';
import { loadSettings } from '../config.js';
import { CliError } from '../errors.js';
import { colours, printJson } from '../output.js';

/** The longest overlap Plaza accepts (rotateClientSecret's MAX_OVERLAP_HOURS): a week. */
const MAX_OVERLAP_HOURS = 168;
const FIELDS = 'appId value createdAt previousValue previousValidUntil';
const ROTATE = `mutation($appId: ID!, $overlapHours: Int) { rotateClientSecret(appId: $appId, overlapHours: $overlapHours) { ${FIELDS} } }`;
const FINISH = `mutation($appId: ID!) { finishClientSecretRotation(appId: $appId) { ${FIELDS} } }`;

interface ClientSecret {
  appId: string;
  value: string;
  createdAt: string;
  previousValue: string | null;
  previousValidUntil: string | null;
}

/** --overlap: whole hours from 0 (switch now, for a leaked secret) to a week; checked here so a typo costs no request. */
export function parseOverlap(raw: string): number {
  if (!/^\d+$/.test(raw.trim()) || Number(raw) > MAX_OVERLAP_HOURS) {
    throw new CliError(`--overlap must be a whole number of hours from 0 (switch now, if the secret leaked) to ${MAX_OVERLAP_HOURS}, not "${raw}"`);
  }
  return Number(raw);
}

/** Rotating or finishing is for the owner signed in (the server refuses API tokens for client secrets). */
async function signedInApi(appId: string): Promise<PlazaApi> {
  const settings = await loadSettings();
  requireSignInToken(settings, 'plaza secret', `rotate it in the portal (${settings.url}/developer/apps/${appId})`);
  return new PlazaApi(settings);
}

export async function rotateSecret(options: { app: string; overlap?: string; json?: boolean }): Promise<void> {
  const overlapHours = options.overlap === undefined ? undefined : parseOverlap(options.overlap);
  const api = await signedInApi(options.app);
  const { rotateClientSecret: secret } = await api.request<{ rotateClientSecret: ClientSecret }>(ROTATE, { appId: options.app, overlapHours });
  if (options.json) return printJson(secret);
  process.stdout.write(`New client secret of ${secret.appId}: ${colours.bold(secret.value)}\n`);
  if (secret.previousValidUntil) {
    process.stdout.write(
      `The old secret keeps signing until ${secret.previousValidUntil} (webhook-signature carries both, X-Platform-Signature the old one). Deploy the new secret, then run plaza secret finish --app ${secret.appId}.\n`,
    );
  } else {
    process.stdout.write('Only the new secret signs from now on: every older secret has stopped. Deploy it now.\n');
  }
}

export async function finishSecretRotation(options: { app: string; json?: boolean }): Promise<void> {
  const api = await signedInApi(options.app);
  const { finishClientSecretRotation: secret } = await api.request<{ finishClientSecretRotation: ClientSecret }>(FINISH, { appId: options.app });
  if (options.json) return printJson(secret);
  process.stdout.write(`Rotation finished: only the current secret of ${secret.appId} signs from the next attempt on.\n`);
}
