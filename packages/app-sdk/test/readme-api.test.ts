import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import * as root from '../src/index.js';
import * as browser from '../src/browser/index.js';
import * as server from '../src/server/index.js';

// The README's API section names every export of every entry point, values and types alike.
const readme = await readFile(new URL('../README.md', import.meta.url), 'utf8');
const apiSection = readme.slice(readme.indexOf('\n## API\n'), readme.indexOf('\n## Developing this package\n'));

/** Type-only exports leave no trace at run time: read them from the entry points' source. */
async function typeExports(files: string[]): Promise<string[]> {
  const names: string[] = [];
  for (const file of files) {
    const source = await readFile(new URL(`../src/${file}`, import.meta.url), 'utf8');
    for (const [, typeOnly, list] of source.matchAll(/export (type )?\{([^}]*)\}/g)) {
      for (const entry of list!.split(',').map((text) => text.trim())) {
        const match = /^(type\s+)?(\w+)$/.exec(entry);
        if (match && (typeOnly || match[1])) names.push(match[2]!);
      }
    }
    for (const [, name] of source.matchAll(/export (?:interface|type) (\w+)/g)) names.push(name!);
  }
  return names;
}

describe('the README API section', () => {
  it('exists', () => {
    expect(apiSection.length).toBeGreaterThan(100);
  });

  it.each([
    ['@plaza/app-sdk', Object.keys(root)],
    ['@plaza/app-sdk/browser', Object.keys(browser)],
    ['@plaza/app-sdk/server', Object.keys(server)],
  ])('names every value %s exports', (_entry, names) => {
    expect(names.filter((name) => !apiSection.includes(`\`${name}`))).toEqual([]);
  });

  it('names every type the entry points export', async () => {
    const names = await typeExports(['index.ts', 'types.ts', 'browser/index.ts', 'server/index.ts']);
    expect(names.length).toBeGreaterThan(15);
    expect(names.filter((name) => !new RegExp(`\`${name}\\b`).test(apiSection))).toEqual([]);
  });
});
