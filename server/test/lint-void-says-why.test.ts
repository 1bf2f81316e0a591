import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The workspace's lint rule that a promise dropped with `void` says why (tools/lint/rules/void-says-why.js),
// run by ESLint with types, as `pnpm lint` runs it, over small files of a project of their own.
const LINT = path.resolve(import.meta.dirname, '../../tools/lint');
const fromLint = createRequire(path.join(LINT, 'package.json'));
const load = async <T>(specifier: string): Promise<T> => (await import(pathToFileURL(fromLint.resolve(specifier)).href)) as T;

type Lint = (source: string) => Promise<{ line: number; ruleId: string | null }[]>;
/** The little of ESLint's API used here (its types belong to tools/lint, not to the server). */
interface ESLintApi {
  ESLint: new (options: Record<string, unknown>) => { lintFiles(files: string[]): Promise<{ messages: { line: number; ruleId: string | null }[] }[]> };
}
let dir: string;
let lint: Lint;

beforeAll(async () => {
  const { ESLint } = await load<ESLintApi>('eslint');
  const tseslint = (await load<{ default: { parser: unknown } }>('typescript-eslint')).default;
  const plaza = (await import(pathToFileURL(path.join(LINT, 'rules/void-says-why.js')).href)) as { default: Record<string, unknown> };
  dir = mkdtempSync(path.join(tmpdir(), 'void-says-why-'));
  writeFileSync(
    path.join(dir, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { strict: true, target: 'es2022', module: 'nodenext', lib: ['es2022'], types: [] }, include: ['*.ts'] }),
  );
  const eslint = new ESLint({
    cwd: dir,
    overrideConfigFile: true,
    overrideConfig: [
      {
        files: ['**/*.ts'],
        languageOptions: { parser: tseslint.parser, parserOptions: { projectService: true, tsconfigRootDir: dir } },
        plugins: { plaza: plaza.default },
        rules: { 'plaza/void-says-why': 'error' },
      },
    ],
  });
  let n = 0;
  lint = async (source) => {
    const file = path.join(dir, `case${n++}.ts`);
    writeFileSync(file, source);
    const [result] = await eslint.lintFiles([file]);
    return result!.messages.map((m) => ({ line: m.line, ruleId: m.ruleId }));
  };
}, 60_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

const PRELUDE = `declare function send(): Promise<void>;\ndeclare function write(): boolean;\n`;

describe('plaza/void-says-why', () => {
  it('fails a promise dropped with void and no reason, wherever it is: a statement, an arrow’s body, a property', async () => {
    const found = await lint(`${PRELUDE}export function a(): void {\n  void send();\n}\nexport const b = () => void send();\nexport const c = { on: () => void send() };\n`);
    expect(found).toEqual([
      { line: 4, ruleId: 'plaza/void-says-why' },
      { line: 6, ruleId: 'plaza/void-says-why' },
      { line: 7, ruleId: 'plaza/void-says-why' },
    ]);
  });

  it('passes one whose reason is on its line, the line above, or above the statement, property or whole `if` it is part of', async () => {
    const found = await lint(
      `${PRELUDE}export function a(): void {\n  // send() logs its own failures and never rejects.\n  void send();\n  void send(); // never rejects\n}\n` +
        `export const c = {\n  // Never rejects: send() catches its own failures.\n  on: () =>\n    void send(),\n};\n` +
        `export function d(soon: boolean): void {\n  // Neither rejects: send() catches its own failures.\n  if (soon) void send();\n  else setTimeout(() => void send(), 10);\n}\n`,
    );
    expect(found).toEqual([]);
  });

  it('leaves alone a void of anything that is not a promise', async () => {
    const found = await lint(`${PRELUDE}export function a(): void {\n  void write();\n  const unused = 1;\n  void unused;\n}\n`);
    expect(found).toEqual([]);
  });
});
