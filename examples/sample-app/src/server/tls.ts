import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SampleAppConfig } from './config.js';

export interface TlsCredentials {
  cert: Buffer;
  key: Buffer;
  /** Set when the certificate was made here: browsers do not trust it. */
  selfSignedFile?: string;
}

/** examples/sample-app/.data, beside package.json (git ignores it). */
const DATA_DIR = fileURLToPath(new URL('../../.data/', import.meta.url));

/**
 * App URLs must be HTTPS, so the app always serves TLS: the given certificate, or a self-signed one for
 * localhost made once with openssl and kept, so the browser exception you accept survives restarts.
 */
export function loadTlsCredentials(tls: SampleAppConfig['tls']): TlsCredentials {
  if (tls) return { cert: readFileSync(tls.certFile), key: readFileSync(tls.keyFile) };
  const certFile = path.join(DATA_DIR, 'localhost-cert.pem');
  const keyFile = path.join(DATA_DIR, 'localhost-key.pem');
  if (!existsSync(certFile) || !existsSync(keyFile)) {
    mkdirSync(DATA_DIR, { recursive: true });
    // prettier-ignore
    execFileSync('openssl', [
      'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '365',
      '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1',
      '-keyout', keyFile, '-out', certFile,
    ], { stdio: 'pipe' });
  }
  return { cert: readFileSync(certFile), key: readFileSync(keyFile), selfSignedFile: certFile };
}
