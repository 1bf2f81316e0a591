import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

// conventions.md 14 and 16: infrastructure imports no feature and no wiring; a feature uses another
// only through that feature's index; resolvers get their services by injection and leave the database to them.

const SRC = path.resolve(import.meta.dirname, '../src');

function filesUnder(dir: string, suffix: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(suffix))
    .map((entry) => path.join(entry.parentPath, entry.name));
}

const importsOf = (file: string) => [...readFileSync(file, 'utf8').matchAll(/^\s*(?:import|export)\b[^;]*?from\s+'([^']+)'/gm)].flatMap((m) => m[1] ?? []);
const relative = (file: string) => path.relative(SRC, file);

describe('floors', () => {
  it('nothing under platform/ imports the wiring (app/) or a feature (modules/)', () => {
    const upward = filesUnder(path.join(SRC, 'platform'), '.ts').flatMap((file) =>
      importsOf(file)
        .filter((specifier) => specifier.startsWith('.') && /^(app|modules)\//.test(relative(path.resolve(path.dirname(file), specifier))))
        .map((specifier) => `${relative(file)} -> ${specifier}`),
    );
    expect(upward).toEqual([]);
  });

  it('a feature uses another feature only through its index (modules/<feature>/index.ts), never its files', () => {
    const MODULES = path.join(SRC, 'modules');
    const featureOf = (file: string) => path.relative(MODULES, file).split(path.sep)[0];
    const features = readdirSync(MODULES, { withFileTypes: true }).filter((entry) => entry.isDirectory());
    expect(features.map((entry) => entry.name)).toEqual(expect.arrayContaining(['apps', 'identity', 'marketplace', 'review', 'secrets', 'webhooks']));
    const reaching = filesUnder(MODULES, '.ts').flatMap((file) =>
      importsOf(file)
        .filter((specifier) => specifier.startsWith('.'))
        .map((specifier) => path.resolve(path.dirname(file), specifier))
        .filter((target) => target.startsWith(MODULES + path.sep) && featureOf(target) !== featureOf(file))
        .filter((target) => path.relative(MODULES, target) !== path.join(featureOf(target)!, 'index.js'))
        .map((target) => `${relative(file)} -> ${relative(target)}`),
    );
    expect(reaching).toEqual([]);
  });

  it('resolvers name their services in their constructors: no bag of services in the context, no repository queries', () => {
    const resolvers = filesUnder(path.join(SRC, 'modules'), '.resolver.ts');
    expect(resolvers.length).toBeGreaterThan(5);
    const reaching = resolvers.flatMap((file) => {
      const text = readFileSync(file, 'utf8');
      return [/\bservices\b/, /getRepository\(/, /\.db\b/].filter((pattern) => pattern.test(text)).map((pattern) => `${relative(file)} uses ${pattern}`);
    });
    expect(reaching).toEqual([]);
  });
});
