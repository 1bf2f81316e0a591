import { createInterface } from 'node:readline';
import { ME, PlazaApi, type Me } from '../api.js';
import { forgetToken, loadSettings, storeToken } from '../config.js';
import { CliError } from '../errors.js';
import { colours, printJson } from '../output.js';

/** The portal's API tokens page (web/src/routes.ts: /developer/tokens). */
export const tokensPageUrl = (url: string) => `${url}/developer/tokens`;

async function readLine(): Promise<string> {
  const lines = createInterface({ input: process.stdin });
  for await (const line of lines) {
    lines.close();
    return line;
  }
  return '';
}

export async function login(options: { json?: boolean }): Promise<void> {
  const settings = await loadSettings();
  const page = tokensPageUrl(settings.url);
  process.stderr.write(`Create an API token at ${colours.cyan(page)} (scopes deliveries:read, deliveries:write and apps:read for every command) and paste it here.\n`);
  // On a terminal the token is typed masked; piped in (`plaza login < token.txt`, scripts) it is read as one line.
  // @inquirer/prompts is loaded only for a terminal's prompt: it took 0.2-0.3 s to load, and whoami shares this module.
  const token = (process.stdin.isTTY ? await (await import('@inquirer/prompts')).password({ message: 'API token', mask: '*' }) : await readLine()).trim();
  if (!token) throw new CliError(`No token given: create one at ${page}, then run plaza login again`);
  const { me } = await new PlazaApi(settings).request<{ me: Me | null }>(ME, {}, token);
  if (!me) throw new CliError('Your token was refused (UNAUTHENTICATED): run plaza login');
  await storeToken(settings.configPath, settings.url, token);
  if (options.json) printJson({ url: settings.url, user: me, configPath: settings.configPath });
  else process.stdout.write(`Signed in to ${settings.url} as ${colours.bold(me.email)}; token stored in ${settings.configPath}\n`);
  if (settings.tokenSource === 'PLAZA_TOKEN') process.stderr.write('Note: PLAZA_TOKEN is set, and it wins over the stored token while it is.\n');
}

export async function logout(options: { json?: boolean }): Promise<void> {
  const settings = await loadSettings();
  const removed = await forgetToken(settings.configPath, settings.url);
  if (options.json) return printJson({ url: settings.url, removed, configPath: settings.configPath });
  process.stdout.write(
    removed ? `Signed out of ${settings.url}: the stored token is deleted (revoke it in the portal if it may have leaked)\n` : `No token was stored for ${settings.url}\n`,
  );
}

export async function whoami(options: { json?: boolean }): Promise<void> {
  const settings = await loadSettings();
  const { me } = await new PlazaApi(settings).request<{ me: Me | null }>(ME);
  if (!me) throw new CliError('Your token was refused (UNAUTHENTICATED): run plaza login');
  if (options.json) return printJson({ url: settings.url, tokenSource: settings.tokenSource, ...me });
  process.stdout.write(
    `${colours.bold(me.email)} (${me.id}) on ${settings.url}, roles ${me.roles.join(', ')}; token from ${settings.tokenSource === 'config' ? settings.configPath : 'PLAZA_TOKEN'}\n`,
  );
}
