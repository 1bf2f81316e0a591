import { execFileSync } from 'node:child_process';
import { createHash, X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';

export interface TestTls {
  /** PEM files: the throwaway CA, and a localhost/127.0.0.1 certificate it issued. */
  caFile: string;
  certFile: string;
  keyFile: string;
  /** base64 SHA-256 of the certificate's public key, for chromium's --ignore-certificate-errors-spki-list. */
  spkiSha256: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    e2eTls: TestTls;
  }
}

/**
 * App URLs must be HTTPS, so the sample app serves a certificate from a throwaway CA made here with
 * openssl. Unlike the server tests' setup this sets no NODE_EXTRA_CA_CERTS on this process (the
 * projects share it); each Plaza process gets the CA in its own env, and chromium trusts the key.
 */
export default function setup(project: TestProject) {
  const dir = mkdtempSync(path.join(tmpdir(), 'plaza-e2e-tls-'));
  const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  openssl('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '2', '-subj', '/CN=Plaza-E2E-CA', '-keyout', 'ca.key', '-out', 'ca.crt');
  openssl('req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-subj', '/CN=localhost', '-keyout', 'server.key', '-out', 'server.csr');
  writeFileSync(path.join(dir, 'san.ext'), 'subjectAltName=DNS:localhost,IP:127.0.0.1\n');
  openssl('x509', '-req', '-in', 'server.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-days', '2', '-extfile', 'san.ext', '-out', 'server.crt');

  const certFile = path.join(dir, 'server.crt');
  const spki = new X509Certificate(readFileSync(certFile)).publicKey.export({ type: 'spki', format: 'der' });
  project.provide('e2eTls', {
    caFile: path.join(dir, 'ca.crt'),
    certFile,
    keyFile: path.join(dir, 'server.key'),
    spkiSha256: createHash('sha256').update(spki).digest('base64'),
  });
  return () => rmSync(dir, { recursive: true, force: true });
}
