import path from 'node:path';
import { inject } from 'vitest';
import { baseEnv, startNodeProcess, type RunningProcess } from './child-process.js';
import { REPO_ROOT } from './paths.js';

export interface SampleAppOptions {
  port: number;
  platformOrigin: string;
  appId: string;
  clientSecret: string;
}

/** The built sample app (`node examples/sample-app/dist/server/main.js`), configured as its README says. */
export function startSampleApp({ port, platformOrigin, appId, clientSecret }: SampleAppOptions): Promise<RunningProcess> {
  const tls = inject('e2eTls');
  return startNodeProcess({
    name: 'sample app',
    script: path.join(REPO_ROOT, 'examples/sample-app/dist/server/main.js'),
    env: {
      ...baseEnv(),
      PORT: String(port),
      PLATFORM_ORIGIN: platformOrigin,
      APP_ID: appId,
      CLIENT_SECRET: clientSecret,
      TLS_CERT_FILE: tls.certFile,
      TLS_KEY_FILE: tls.keyFile,
    },
    isReady: (output) => output.includes(`listening on https://localhost:${port}`),
  });
}
