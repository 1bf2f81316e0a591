// Runs after tsc: makes dist/ installable outside this workspace. @plaza/shared is workspace-only, so its
// built modules are copied into dist/shared/ and every import of it, in .js and .d.ts alike, is pointed
// there; the package's version is stamped where the User-Agent reads it. Fails loudly if anything is left.
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const dist = join(packageDir, 'dist');
const vendored = join(dist, 'shared');
const { version } = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8'));

const sharedDist = dirname(fileURLToPath(import.meta.resolve('@plaza/shared')));
mkdirSync(vendored, { recursive: true });
for (const name of readdirSync(sharedDist)) {
  if (name.endsWith('.js') || name.endsWith('.d.ts')) copyFileSync(join(sharedDist, name), join(vendored, name));
}

const filesUnder = (dir) => readdirSync(dir, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? filesUnder(join(dir, entry.name)) : [join(dir, entry.name)]));
const SHARED = /(['"])@plaza\/shared\1/g;
const VERSION_PLACEHOLDER = "'0.0.0-source'";

for (const file of filesUnder(dist)) {
  if (!file.endsWith('.js') && !file.endsWith('.d.ts')) continue;
  let text = readFileSync(file, 'utf8');
  const before = text;
  let target = relative(dirname(file), join(vendored, 'index.js'));
  if (!target.startsWith('.')) target = `./${target}`;
  text = text.replace(SHARED, `'${target}'`);
  // The shared package's own maps are not copied (they point at its src/, which is not shipped).
  text = text.replace(/\n\/\/# sourceMappingURL=\S+\s*$/, '\n');
  if (file === join(dist, 'version.js')) {
    if (!text.includes(VERSION_PLACEHOLDER)) throw new Error(`dist/version.js does not hold ${VERSION_PLACEHOLDER} to stamp`);
    text = text.replace(VERSION_PLACEHOLDER, JSON.stringify(version));
  }
  if (text !== before) writeFileSync(file, text);
  if (/@plaza\/shared/.test(text.replace(/^\s*\/\/.*$/gm, ''))) throw new Error(`${relative(packageDir, file)} still imports @plaza/shared`);
}

// Types for require('@plaza/app-sdk/server'): the same declarations as the ES entry.
writeFileSync(join(dist, 'server/index.d.cts'), "export * from './index.js';\n");
