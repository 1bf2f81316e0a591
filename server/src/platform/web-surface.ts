import express, { Router, type Request, type Response } from 'express';
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { SPA_POLICY } from './security-headers.js';
import { ErrorCode } from './errors.js';
import { sendError } from './http-errors.js';

/** Content encodings the web build writes beside each compressible file (web/vite.config.ts), best first. */
const ENCODINGS = [
  { name: 'br', suffix: '.br' },
  { name: 'gzip', suffix: '.gz' },
] as const;
/** What the build compresses; everything else (images, woff2) is compressed already. */
const COMPRESSIBLE = /\.(js|mjs|css|html|svg|json|txt|map|ttf|ico|webmanifest)$/;
/** Vite names files under /assets by their content's hash, so a name never changes its bytes. */
const HASHED_CACHE = 'public, max-age=31536000, immutable';
const PLAIN_CACHE = 'public, max-age=3600';
/** Paths that are files, never pages: when missing they are a 404, not the SPA's HTML with status 200. */
const NEVER_A_PAGE = /^\/(assets\/|favicon\.ico$|robots\.txt$|\.well-known\/)/;

const cacheControlFor = (urlPath: string) => (urlPath.startsWith('/assets/') ? HASHED_CACHE : PLAIN_CACHE);

/** GET asks for a page unless JSON is preferred; other methods are API calls unless HTML is preferred. */
function wantsJson(req: Request): boolean {
  const order = req.method === 'GET' || req.method === 'HEAD' ? ['html', 'json'] : ['json', 'html'];
  return req.accepts(order) === 'json';
}

/** A real 404 for anything no route serves: JSON in the API's error shape when JSON was asked for. */
export function notFound(req: Request, res: Response): void {
  if (wantsJson(req)) sendError(res, 404, ErrorCode.NOT_FOUND, `Nothing is served at ${req.method} ${req.path}`);
  else res.status(404).type('text/plain').send('Not found');
}

/** The file under `root` that a URL path names, or undefined (outside root, a dotfile, not a file). */
function fileUnder(root: string, urlPath: string): string | undefined {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return undefined;
  }
  if (decoded.includes('\0') || decoded.split('/').some((segment) => segment.startsWith('.'))) return undefined;
  const file = path.join(root, decoded);
  if (!file.startsWith(root + path.sep)) return undefined;
  try {
    return statSync(file).isFile() ? file : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The built web app: its files (the build's .br/.gz when the client takes them, hashed assets cached
 * for a year), and index.html with the SPA's CSP for every other GET that asks for a page.
 */
export function webRoutes(webDist: string): Router {
  const root = path.resolve(webDist);
  const indexHtml = path.join(root, 'index.html');
  const router = Router();

  const page = (_req: Request, res: Response) => {
    res.setHeader('content-security-policy', SPA_POLICY);
    // Revalidated on every load so a deploy's new asset names are picked up at once.
    res.sendFile(indexHtml, { cacheControl: false, headers: { 'cache-control': 'no-cache' } });
  };
  router.get('/index.html', page);

  router.get(/.*/, (req, res, next) => {
    const file = fileUnder(root, req.path);
    if (!file || !COMPRESSIBLE.test(file)) return next();
    res.vary('Accept-Encoding');
    // Our preference, not the order the client happens to list them in ("gzip, deflate, br").
    const encoding = ENCODINGS.find((e) => req.acceptsEncodings(e.name) === e.name && existsSync(file + e.suffix));
    if (!encoding) return next();
    res.type(path.extname(file));
    res.setHeader('content-encoding', encoding.name);
    // Byte ranges of an encoded body would not be ranges of the file the client asked for.
    res.sendFile(file + encoding.suffix, { acceptRanges: false, cacheControl: false, headers: { 'cache-control': cacheControlFor(req.path) } });
  });
  router.use(
    express.static(root, {
      index: false,
      redirect: false,
      setHeaders: (res, file) => res.setHeader('cache-control', cacheControlFor('/' + path.relative(root, file).split(path.sep).join('/'))),
    }),
  );

  router.get(/.*/, (req, res) => {
    if (NEVER_A_PAGE.test(req.path) || wantsJson(req)) return notFound(req, res);
    page(req, res);
  });
  return router;
}

/** Whether `webDist` holds a built web app. */
export const isBuilt = (webDist: string) => existsSync(path.join(webDist, 'index.html'));
