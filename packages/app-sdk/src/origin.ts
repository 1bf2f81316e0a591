interface ParsedOrigin {
  protocol: string;
  hostname: string;
  port: string;
}

const IPV4 = /^\d{1,3}(\.\d{1,3}){3}$/;

/**
 * Parses a serialized origin (`https://host[:port]`, one trailing slash tolerated). Anything that
 * carries more than an origin (path, query, credentials) is refused rather than trimmed, because a
 * value like `https://platform.example/x` in a config is a mistake worth failing on.
 */
export function parseOrigin(value: unknown): ParsedOrigin | undefined {
  if (typeof value !== 'string' || value === '' || value === 'null') return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
  if (url.username || url.password || url.search || url.hash || url.pathname !== '/') return undefined;
  // `new URL` accepts `https://host/?` and `https://host/#` with an empty query or fragment.
  if (/[?#]/.test(value)) return undefined;
  if (!url.hostname) return undefined;
  // URL lowercases the host and drops default ports, so equal origins compare equal below.
  return { protocol: url.protocol, hostname: url.hostname, port: url.port };
}

function isIpAddress(hostname: string): boolean {
  return IPV4.test(hostname) || hostname.startsWith('[');
}

function isSubdomainOf(hostname: string, parent: string): boolean {
  if (isIpAddress(parent) || !hostname.endsWith(`.${parent}`)) return false;
  const labels = hostname.slice(0, -(parent.length + 1)).split('.');
  return labels.every((label) => label.length > 0);
}

/**
 * True when `origin` is one of `allowedOrigins` or a true subdomain of one, with the same scheme and
 * port. `https://app.platform.example` matches `https://platform.example`; `https://evilplatform.example`,
 * `https://platform.example.evil.com`, `http://platform.example` and `https://platform.example:8443` do
 * not. Malformed values and `null` never match; malformed allowed entries match nothing.
 */
export function isAllowedOrigin(origin: string, allowedOrigins: readonly string[]): boolean {
  const candidate = parseOrigin(origin);
  if (!candidate || !Array.isArray(allowedOrigins)) return false;
  return allowedOrigins.some((entry) => {
    const allowed = parseOrigin(entry);
    if (!allowed) return false;
    if (allowed.protocol !== candidate.protocol || allowed.port !== candidate.port) return false;
    return candidate.hostname === allowed.hostname || isSubdomainOf(candidate.hostname, allowed.hostname);
  });
}
