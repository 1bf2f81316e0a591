export interface SampleAppConfig {
  port: number;
  /** Where Plaza runs: the only origin allowed to frame the page and send INIT_SESSION, and the token issuer. */
  platformOrigin: string;
  appId: string;
  /** Signs Plaza's webhooks. Stays in this process: the page never sees it. */
  clientSecret: string;
  tls: { certFile: string; keyFile: string } | null;
}

export class ConfigError extends Error {}

function required(env: NodeJS.ProcessEnv, name: string, hint: string): string {
  const value = env[name]?.trim();
  if (!value) throw new ConfigError(`${name} is required: ${hint}`);
  return value;
}

function originOf(name: string, value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(`${name} must be an origin such as http://localhost:4000, got ${JSON.stringify(value)}`);
  }
  if (url.origin !== value.replace(/\/$/, '')) throw new ConfigError(`${name} must be an origin (scheme://host[:port], no path), got ${JSON.stringify(value)}`);
  return url.origin;
}

function portOf(value: string | undefined): number {
  if (value === undefined || value === '') return 3443;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new ConfigError(`PORT must be a port number (0-65535), got ${JSON.stringify(value)}`);
  return port;
}

function tlsOf(env: NodeJS.ProcessEnv): SampleAppConfig['tls'] {
  const certFile = env.TLS_CERT_FILE?.trim();
  const keyFile = env.TLS_KEY_FILE?.trim();
  if (!certFile && !keyFile) return null;
  if (!certFile || !keyFile) throw new ConfigError('TLS_CERT_FILE and TLS_KEY_FILE go together: set both, or neither for a generated localhost certificate');
  return { certFile, keyFile };
}

export function readConfig(env: NodeJS.ProcessEnv = process.env): SampleAppConfig {
  return {
    port: portOf(env.PORT),
    platformOrigin: originOf('PLATFORM_ORIGIN', env.PLATFORM_ORIGIN?.trim() || 'http://localhost:4000'),
    appId: required(env, 'APP_ID', 'the app id (app_...) Plaza gave the app when you submitted it'),
    clientSecret: required(env, 'CLIENT_SECRET', "the app's client secret (whsec_...), from revealClientSecret in Plaza"),
    tls: tlsOf(env),
  };
}
