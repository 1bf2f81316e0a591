/**
 * Whether a page's response headers let `embedderOrigin` frame it: X-Frame-Options and the CSP
 * `frame-ancestors` directive (which browsers obey over X-Frame-Options when both are present).
 */
export function framingProblem(headers: Record<string, string | string[] | undefined>, pageUrl: string, embedderOrigin: string): string | undefined {
  const pageOrigin = new URL(pageUrl).origin;
  const csp = headerValues(headers['content-security-policy']);
  const ancestors = csp
    .flatMap((policy) => policy.split(';'))
    .map((d) => d.trim())
    .find((d) => /^frame-ancestors(\s|$)/i.test(d));
  if (ancestors) {
    const sources = ancestors.split(/\s+/).slice(1);
    if (sources.length === 0 || sources.some((s) => s.toLowerCase() === "'none'")) return "CSP frame-ancestors is 'none': no site may frame the app";
    return sources.some((source) => sourceMatches(source, embedderOrigin, pageOrigin))
      ? undefined
      : `CSP frame-ancestors (${sources.join(' ')}) does not include ${embedderOrigin}`;
  }
  const xfo = headerValues(headers['x-frame-options'])[0]?.trim().toUpperCase();
  if (xfo === 'DENY') return 'X-Frame-Options: DENY forbids framing';
  if (xfo === 'SAMEORIGIN' && pageOrigin !== embedderOrigin) return `X-Frame-Options: SAMEORIGIN forbids framing by ${embedderOrigin}`;
  return undefined;
}

const headerValues = (value: string | string[] | undefined): string[] => (value === undefined ? [] : Array.isArray(value) ? value : [value]);

/** One CSP source expression against an origin (CSP Level 3 host-source / scheme-source matching, simplified to origins). */
function sourceMatches(source: string, origin: string, pageOrigin: string): boolean {
  const target = new URL(origin);
  const lower = source.toLowerCase();
  if (lower === '*') return true;
  if (lower === "'self'") return origin === pageOrigin;
  if (/^[a-z][a-z0-9+.-]*:$/.test(lower)) return target.protocol === lower;
  const match = /^(?:([a-z][a-z0-9+.-]*):\/\/)?(\*\.)?([^:/]+)(?::(\d+|\*))?/.exec(lower);
  if (!match) return false;
  const [, scheme, wildcard, host, port] = match;
  if (scheme && `${scheme}:` !== target.protocol) return false;
  if (!scheme && target.protocol !== 'https:' && target.protocol !== 'http:') return false;
  const hostMatches = wildcard ? target.hostname.endsWith(`.${host}`) : target.hostname === host;
  if (!hostMatches) return false;
  const targetPort = target.port || (target.protocol === 'https:' ? '443' : '80');
  const wantedPort = port ?? (scheme === 'http' ? '80' : scheme === 'https' || target.protocol === 'https:' ? '443' : '80');
  return port === '*' || targetPort === wantedPort;
}
