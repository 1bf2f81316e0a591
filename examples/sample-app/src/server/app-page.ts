import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

export interface AppPage {
  html: string;
  headers: Record<string, string>;
}

const escapeAttribute = (value: string) => value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

/**
 * The page Plaza frames. Only the platform may frame it (CSP frame-ancestors), and it runs only its own
 * scripts: the import map is the one inline script, allowed by its hash.
 */
export function loadAppPage(templateFile: string, platformOrigin: string): AppPage {
  const html = readFileSync(templateFile, 'utf8').replaceAll('%PLATFORM_ORIGIN%', escapeAttribute(platformOrigin));
  const importMap = /<script type="importmap">([\s\S]*?)<\/script>/.exec(html)?.[1];
  if (importMap === undefined) throw new Error(`${templateFile} has no import map`);
  const importMapHash = createHash('sha256').update(importMap).digest('base64');
  const csp = [
    "default-src 'self'",
    `script-src 'self' 'sha256-${importMapHash}'`,
    "style-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    `frame-ancestors ${platformOrigin}`,
  ].join('; ');
  return {
    html,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': csp,
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'cache-control': 'no-store',
    },
  };
}
