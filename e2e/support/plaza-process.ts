import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { inject } from 'vitest';
import { baseEnv, startNodeProcess, type RunningProcess } from './child-process.js';
import { freePort } from './free-port.js';
import { REPO_ROOT } from './paths.js';

export const REVIEWER_EMAIL = 'reviewer@plaza.test';
export const ADMIN_EMAIL = 'admin@plaza.test';

export interface PlazaProcess extends RunningProcess {
  /** http://localhost:<port>: the origin the browser uses, the token issuer and what apps allow. */
  origin: string;
  port: number;
  dataDir: string;
  /** Stops the process and keeps its data, for startPlaza({ port, dataDir }) to start it again as it was. */
  halt(): Promise<void>;
}

/**
 * The built Plaza (`node server/dist/main.js`) with its own embedded PostgreSQL in a temporary data dir;
 * given the port and data dir of a halted one, the same Plaza again (same origin, data and keys).
 */
export async function startPlaza(again: { port: number; dataDir: string } | null = null, settings: Record<string, string> = {}): Promise<PlazaProcess> {
  // A port found free can be taken by another process before Plaza listens on it (a full run starts many): a new
  // Plaza tries again on another port and data dir, once or twice; a Plaza started again keeps its own port.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startPlazaOnce(again, settings);
    } catch (err) {
      if (again !== null || attempt === 3 || !/port \d+ is already in use/.test((err as Error).message)) throw err;
    }
  }
}

async function startPlazaOnce(again: { port: number; dataDir: string } | null, settings: Record<string, string>): Promise<PlazaProcess> {
  const dataDir = again?.dataDir ?? mkdtempSync(path.join(tmpdir(), 'plaza-e2e-data-'));
  // Embedded PostgreSQL runs as the postgres user, which must be able to traverse the data dir.
  chmodSync(dataDir, 0o755);
  const port = again?.port ?? (await freePort());
  const origin = `http://localhost:${port}`;
  const plaza = await startNodeProcess({
    name: 'Plaza',
    script: path.join(REPO_ROOT, 'server/dist/main.js'),
    env: {
      ...baseEnv(),
      PORT: String(port),
      PLATFORM_ORIGIN: origin,
      DATA_DIR: dataDir,
      PLATFORM_REVIEWER_EMAILS: REVIEWER_EMAIL,
      PLATFORM_ADMIN_EMAILS: ADMIN_EMAIL,
      WEBHOOK_RETRY_SCHEDULE: '200ms,200ms',
      // Webhooks go to the sample app over HTTPS, with a certificate from the tests' CA.
      NODE_EXTRA_CA_CERTS: inject('e2eTls').caFile,
      LOG_LEVEL: 'warn',
      // A test's own settings (e.g. a short WEBHOOK_DISABLE_AFTER) over the defaults above.
      ...settings,
    },
    isReady: () =>
      fetch(`http://127.0.0.1:${port}/readyz`).then(
        (response) => response.ok,
        () => false,
      ),
  });
  return {
    ...plaza,
    origin,
    port,
    dataDir,
    halt: () => plaza.stop(),
    async stop() {
      await plaza.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
