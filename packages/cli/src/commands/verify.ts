import { readFile } from 'node:fs/promises';
import { CliError } from '../errors.js';
import { colours, printJson } from '../output.js';

export interface VerifyOptions {
  secret: string[];
  body: string;
  header: string[];
  tolerance: string;
  json?: boolean;
}

type Verdict = 'valid' | 'invalid' | 'absent';

/** 'Name: value' lines, names lower-cased as Node gives them to a receiver. */
function parseHeaders(lines: string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon <= 0) throw new CliError(`--header must look like 'X-Platform-Signature: sha256=...', not "${line}"`);
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return headers;
}

/** Checks a captured request's signatures against the body file's exact bytes; exit 1 when any present one fails. */
export async function verify(options: VerifyOptions): Promise<void> {
  if (options.secret.length === 0) throw new CliError('--secret is required: the app client secret (repeat it for both secrets during a rotation)');
  const tolerance = Number(options.tolerance);
  if (!Number.isInteger(tolerance) || tolerance < 0) throw new CliError(`--tolerance must be whole seconds, not "${options.tolerance}"`);
  let body: Buffer;
  try {
    body = await readFile(options.body);
  } catch (error) {
    throw new CliError(`Cannot read --body ${options.body}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  const headers = parseHeaders(options.header);
  // Loaded here, not at start-up: only verify needs the SDK, so the other commands start faster.
  const { verifyStandardWebhook, verifyWebhookSignature } = await import('@plaza/app-sdk/server');
  const platform: Verdict =
    headers['x-platform-signature'] === undefined ? 'absent' : verifyWebhookSignature(body, headers['x-platform-signature'], options.secret) ? 'valid' : 'invalid';
  const hasStandard = ['webhook-id', 'webhook-timestamp', 'webhook-signature'].some((name) => headers[name] !== undefined);
  // The signature is judged apart from the clock, so a captured request from last week still says whether it was signed right.
  const standard: Verdict = !hasStandard ? 'absent' : verifyStandardWebhook(body, headers, options.secret, { toleranceSeconds: Number.MAX_SAFE_INTEGER }) ? 'valid' : 'invalid';
  const ageSeconds = headers['webhook-timestamp'] && /^\d+$/.test(headers['webhook-timestamp']) ? Math.floor(Date.now() / 1000) - Number(headers['webhook-timestamp']) : undefined;
  const fresh = ageSeconds === undefined ? undefined : Math.abs(ageSeconds) <= tolerance;
  if (platform === 'absent' && standard === 'absent')
    throw new CliError("No signature to check: pass --header 'X-Platform-Signature: sha256=...' and/or the webhook-id, webhook-timestamp and webhook-signature headers");
  const ok = platform !== 'invalid' && standard !== 'invalid';
  if (options.json) {
    printJson({ valid: ok, xPlatformSignature: platform, standardWebhooks: standard, timestampAgeSeconds: ageSeconds ?? null, withinTolerance: fresh ?? null });
  } else {
    const paint = (v: Verdict) => (v === 'valid' ? colours.green(v) : v === 'invalid' ? colours.red(v) : colours.dim(v));
    process.stdout.write(`X-Platform-Signature: ${paint(platform)}\n`);
    process.stdout.write(`webhook-signature:    ${paint(standard)}\n`);
    if (ageSeconds !== undefined) {
      const note = fresh ? 'within' : colours.yellow('outside');
      process.stdout.write(`webhook-timestamp:    signed ${ageSeconds} s ago, ${note} the ${tolerance} s replay tolerance\n`);
    }
    if (!ok) process.stderr.write('Not signed with this secret: check the secret (plaza apps, the portal), and that the body file holds the exact bytes received\n');
  }
  if (!ok) process.exitCode = 1;
}
