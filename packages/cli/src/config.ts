import { chmod, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { CliError } from './errors.js';

export const DEFAULT_URL = 'http://localhost:4000';

/**
 * What `plaza login` keeps. Tokens are stored per Plaza URL, so pointing PLAZA_URL at another server
 * never sends it a token that was issued by a different one.
 */
interface StoredConfig {
  url?: string;
  tokens?: Record<string, string>;
}

export interface Settings {
  url: string;
  token: string | undefined;
  /** Where the token came from, for whoami and error messages. */
  tokenSource: 'PLAZA_TOKEN' | 'config' | 'none';
  configPath: string;
}

/** $XDG_CONFIG_HOME/plaza/config.json, or ~/.config/plaza/config.json. */
export function configPath(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CONFIG_HOME && env.XDG_CONFIG_HOME.startsWith('/') ? env.XDG_CONFIG_HOME : join(homedir(), '.config');
  return join(base, 'plaza', 'config.json');
}

async function readStored(path: string): Promise<StoredConfig> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new CliError(`Cannot read ${path}: ${(error as Error).message}`);
  }
  try {
    const parsed = JSON.parse(text) as unknown;
    return typeof parsed === 'object' && parsed !== null ? (parsed as StoredConfig) : {};
  } catch {
    throw new CliError(`${path} is not valid JSON: fix or delete it, then run plaza login`);
  }
}

/** Trailing slashes dropped, so http://x:4000/ and http://x:4000 share one stored token. */
export function normalizeUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new CliError(`PLAZA_URL must be an http(s) URL such as ${DEFAULT_URL}, not "${raw}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new CliError(`PLAZA_URL must start with http:// or https://, not "${raw}"`);
  return url.toString().replace(/\/+$/, '');
}

export async function loadSettings(env: NodeJS.ProcessEnv = process.env): Promise<Settings> {
  const path = configPath(env);
  const stored = await readStored(path);
  const url = normalizeUrl(env.PLAZA_URL || stored.url || DEFAULT_URL);
  if (env.PLAZA_TOKEN) return { url, token: env.PLAZA_TOKEN, tokenSource: 'PLAZA_TOKEN', configPath: path };
  const token = stored.tokens?.[url];
  return { url, token, tokenSource: token ? 'config' : 'none', configPath: path };
}

async function writeStored(path: string, config: StoredConfig): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  await writeFile(path, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  // writeFile's mode applies only when it creates the file; an older file keeps its own otherwise.
  await chmod(path, 0o600);
}

export async function storeToken(path: string, url: string, token: string): Promise<void> {
  const stored = await readStored(path);
  await writeStored(path, { ...stored, url, tokens: { ...stored.tokens, [url]: token } });
}

/** Forgets the token of `url`; true when there was one. Removes the file once it holds no token. */
export async function forgetToken(path: string, url: string): Promise<boolean> {
  const stored = await readStored(path);
  if (!stored.tokens?.[url]) return false;
  const { [url]: _removed, ...rest } = stored.tokens;
  if (Object.keys(rest).length === 0) await rm(path, { force: true });
  else await writeStored(path, { ...stored, tokens: rest });
  return true;
}
