import type { CodegenConfig } from '@graphql-codegen/cli';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

// The CLI resolves paths against the working directory (web/, where it is installed), so anchor them
// to this file to keep the config usable from wherever it is run.
const repoRoot = path.dirname(fileURLToPath(import.meta.url));
const fromRoot = (relative: string) => path.join(repoRoot, relative);

const config: CodegenConfig = {
  schema: fromRoot('schema.graphql'),
  documents: [fromRoot('web/src/**/*.{ts,tsx}'), `!${fromRoot('web/src/gql/**')}`],
  generates: {
    [fromRoot('web/src/gql/')]: {
      preset: 'client',
      config: {
        scalars: { DateTime: 'string', SafeInt: 'number' },
        enumsAsTypes: true,
        useTypeImports: true,
      },
    },
  },
};

export default config;
