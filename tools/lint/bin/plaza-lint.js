#!/usr/bin/env node
// `plaza-lint` checks; `plaza-lint --fix` rewrites. Runs from the current directory (the repository root).
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const fix = process.argv.includes('--fix');
// The packages' own command-line entry points, found through their package.json (neither exports its bin path).
const binOf = (name) => {
  const manifest = require.resolve(`${name}/package.json`);
  const { bin } = require(manifest);
  return path.join(path.dirname(manifest), typeof bin === 'string' ? bin : bin[name]);
};
const eslint = binOf('eslint');
const prettier = binOf('prettier');
const config = fileURLToPath(new URL('../eslint.config.js', import.meta.url));

const run = (bin, args) => spawnSync(process.execPath, [bin, ...args], { stdio: 'inherit' }).status ?? 1;

// Prettier first when fixing, so ESLint judges the formatted text.
const steps = fix
  ? [() => run(prettier, ['--write', '--log-level', 'warn', '.']), () => run(eslint, ['-c', config, '--fix', '.'])]
  : [() => run(eslint, ['-c', config, '--max-warnings', '0', '.']), () => run(prettier, ['--check', '--log-level', 'warn', '.'])];
let failed = 0;
// Every step runs, so one run reports both what ESLint and what Prettier would change.
for (const step of steps) failed = step() || failed;
process.exit(failed);
