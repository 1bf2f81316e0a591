import { readFile } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import path from 'node:path';

const CONTENT_TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.png': 'image/png',
};

/** A URL prefix served from a directory: only known file types, never outside the directory. */
export interface StaticMount {
  urlPrefix: string;
  directory: string;
}

export function fileFor(mounts: readonly StaticMount[], pathname: string): string | undefined {
  for (const { urlPrefix, directory } of mounts) {
    if (!pathname.startsWith(urlPrefix)) continue;
    const relative = pathname.slice(urlPrefix.length);
    if (!/^[\w.-]+(\/[\w.-]+)*$/.test(relative) || relative.split('/').includes('..')) return undefined;
    if (!(path.extname(relative) in CONTENT_TYPES)) return undefined;
    const file = path.resolve(directory, relative);
    return file.startsWith(path.resolve(directory) + path.sep) ? file : undefined;
  }
  return undefined;
}

/** Sends the file, or answers 404 when it does not exist. */
export async function sendFile(res: ServerResponse, file: string): Promise<void> {
  let body: Buffer;
  try {
    body = await readFile(file);
  } catch {
    res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not found');
    return;
  }
  res.writeHead(200, {
    'content-type': CONTENT_TYPES[path.extname(file)] ?? 'application/octet-stream',
    'x-content-type-options': 'nosniff',
    // Rebuilt files must reach the next page load: this is a development sample, not a CDN.
    'cache-control': 'no-cache',
  });
  res.end(body);
}
