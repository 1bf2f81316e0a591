#!/usr/bin/env node
// The last step of the README's test command: vitest over every project, as `vitest run` would. Should the
// tests' shared PostgreSQL crash during the run (a server process killed by a signal such as SIGSEGV, which
// ends every session of that server for a second or two), the server test files that failed are run once
// more, on a fresh server: their failures then are the crash's, not theirs. Nothing else is run again: a
// failure with no crash, a failure outside the server's tests, or one that fails again fails the run. The
// crash itself is printed, with its statement and backtrace, whatever the outcome (server/test/global-setup.ts).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const vitest = path.join(root, 'node_modules', '.bin', 'vitest');
const serverTests = path.join(root, 'server', 'test') + path.sep;

function run(label, files) {
  const dir = mkdtempSync(path.join(tmpdir(), `plaza-${label}-`));
  const report = path.join(dir, 'report.json');
  const crashes = path.join(dir, 'database-crashes.json');
  const { status } = spawnSync(vitest, ['run', '--reporter=default', '--reporter=json', `--outputFile.json=${report}`, ...files], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, PLAZA_TEST_DATABASE_CRASHES: crashes },
  });
  const failedFiles = existsSync(report)
    ? JSON.parse(readFileSync(report, 'utf8'))
        .testResults.filter((file) => file.status !== 'passed' && file.status !== 'skipped')
        .map((file) => file.name)
    : undefined;
  const crashLines = existsSync(crashes) ? JSON.parse(readFileSync(crashes, 'utf8')) : [];
  rmSync(dir, { recursive: true, force: true });
  return { status: status ?? 1, failedFiles, crashLines };
}

const first = run('test-run', process.argv.slice(2));
if (first.status === 0) process.exit(0);
const rerunnable =
  first.crashLines.length > 0 && first.failedFiles !== undefined && first.failedFiles.length > 0 && first.failedFiles.every((file) => file.startsWith(serverTests));
if (!rerunnable) process.exit(first.status);

console.error(
  `\nThe tests' shared PostgreSQL crashed during this run:\n${first.crashLines.join('\n')}\n` +
    `The ${first.failedFiles.length} server test file(s) that failed are run once more, on a fresh server:\n${first.failedFiles.map((file) => `  ${path.relative(root, file)}`).join('\n')}\n`,
);
const again = run('test-rerun', first.failedFiles);
console.error(
  again.status === 0
    ? `\nThose ${first.failedFiles.length} file(s) passed on a fresh server: the run passes, and the crash above is PostgreSQL's to explain.`
    : '\nThey failed again: the run fails.',
);
process.exit(again.status);
