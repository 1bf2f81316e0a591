// The published CLI is one ES module bundle (plus a chunk per dynamic import): the workspace-only
// packages it uses (@plaza/app-sdk and, through it, @plaza/shared) are compiled in, so the tarball
// needs nothing but its registry dependencies. package.json's version is stamped into src/version.ts.
import { readFileSync } from 'node:fs';
import { defineConfig } from 'rolldown';

const { version, dependencies } = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8'));
const registryDependencies = Object.keys(dependencies);
const PLACEHOLDER = "'0.0.0-source'";

export default defineConfig({
  input: 'src/main.ts',
  platform: 'node',
  tsconfig: 'tsconfig.build.json',
  // A registry dependency (or a subpath of one) stays an import; everything else is bundled.
  external: (id) => id.startsWith('node:') || registryDependencies.some((name) => id === name || id.startsWith(`${name}/`)),
  plugins: [
    {
      name: 'stamp-version',
      transform(code, id) {
        if (!id.endsWith('/src/version.ts')) return null;
        if (!code.includes(PLACEHOLDER)) throw new Error(`src/version.ts does not hold ${PLACEHOLDER} to stamp`);
        return code.replace(PLACEHOLDER, JSON.stringify(version));
      },
    },
  ],
  output: { dir: 'dist', format: 'esm', entryFileNames: '[name].js', chunkFileNames: '[name]-[hash].js' },
});
