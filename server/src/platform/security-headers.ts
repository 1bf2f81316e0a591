import type { NextFunction, Request, Response } from 'express';

/** What a response that is not a page may do in a browser: nothing (JSON, text, metrics, assets). */
const API_POLICY = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/**
 * The single-page app's policy. Scripts only from this origin (index.html and the build have no inline
 * script). Styles may be inline because GraphiQL's editor (Monaco) injects <style> elements; style
 * cannot run code. App icons are any https image. The launcher frames apps, whose App URLs must be
 * https and are any origin a developer submits: one CSP for the whole SPA (client-side navigation
 * keeps the first page's policy, so it cannot be set per launch), limited to https, and the frame
 * itself is sandboxed. The portal (buy, reveal, rotate) may be framed by no one.
 */
export const SPA_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' https: data:",
  "font-src 'self' data:",
  // 'self' covers the graphql-ws socket on this origin (ws: and wss: match 'self' in CSP 3).
  "connect-src 'self'",
  "worker-src 'self'",
  'frame-src https:',
  "frame-ancestors 'none'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join('; ');

/** Sent with every response, as name, value, name, value… (node:http's writeHead takes it as is); the SPA's page overrides the CSP with SPA_POLICY. */
export function securityHeaderList({ platformOrigin }: { platformOrigin: string }): readonly string[] {
  return [
    'content-security-policy',
    API_POLICY,
    // For browsers without CSP frame-ancestors.
    'x-frame-options',
    'DENY',
    'x-content-type-options',
    'nosniff',
    // Apps in the launcher learn the platform's origin, never the page's path (app and delivery ids).
    'referrer-policy',
    'strict-origin-when-cross-origin',
    // Only once the platform is served over https: HSTS on http would be ignored, and on a dev machine it sticks.
    ...(platformOrigin.startsWith('https:') ? ['strict-transport-security', 'max-age=31536000'] : []),
  ];
}

/** Express middleware setting securityHeaderList on every response. */
export function securityHeaders(config: { platformOrigin: string }) {
  const list = securityHeaderList(config);
  return (_req: Request, res: Response, next: NextFunction): void => {
    for (let i = 0; i < list.length; i += 2) res.setHeader(list[i]!, list[i + 1]!);
    next();
  };
}

/** Sign-in answers carry a token: no cache, shared or private, may keep them. */
export function noStore(_req: Request, res: Response, next: NextFunction): void {
  res.setHeader('cache-control', 'no-store');
  next();
}
