import react from '@vitejs/plugin-react';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import { defineConfig, type Plugin } from 'vite';
import { isFirstLoadWord } from './src/i18n/first-load-words.ts';

/** What gets a .br and .gz beside it; the server (server/src/platform/web-surface.ts) serves those. */
const COMPRESSIBLE = /\.(js|mjs|css|html|svg|json|txt|map|ttf|ico|webmanifest)$/;
/** Below this the headers outweigh what compression saves. */
const MIN_BYTES = 1024;

/**
 * Brotli and gzip made once at build time, so the server sends compressed bytes without compressing
 * per request. The chunks every first visit loads (the entry and what it imports) get brotli's best
 * quality; the large lazy ones (GraphiQL's editor) quality 9, which is within a tenth of it in size
 * at a twentieth of the time.
 */
function precompress(): Plugin {
  const firstLoad = new Set<string>();
  let outDir = '';
  return {
    name: 'plaza-precompress',
    apply: 'build',
    writeBundle(options, bundle) {
      outDir = options.dir ?? outDir;
      const visit = (fileName: string) => {
        const output = bundle[fileName];
        if (firstLoad.has(fileName) || output?.type !== 'chunk') return;
        firstLoad.add(fileName);
        output.imports.forEach(visit);
      };
      for (const output of Object.values(bundle)) if (output.type === 'chunk' && output.isEntry) visit(output.fileName);
    },
    // After the public directory is copied too (robots.txt, the favicon).
    async closeBundle() {
      // Also called when the build failed before writing anything.
      if (!outDir) return;
      const files = (await readdir(outDir, { recursive: true, withFileTypes: true })).filter((entry) => entry.isFile() && COMPRESSIBLE.test(entry.name));
      await Promise.all(
        files.map(async (entry) => {
          const file = path.join(entry.parentPath, entry.name);
          const body = await readFile(file);
          if (body.length < MIN_BYTES) return;
          const quality = firstLoad.has(path.relative(outDir, file).split(path.sep).join('/')) ? 11 : 9;
          const variants: [string, Buffer][] = [
            ['.br', await promisify(brotliCompress)(body, { params: { [constants.BROTLI_PARAM_QUALITY]: quality, [constants.BROTLI_PARAM_SIZE_HINT]: body.length } })],
            ['.gz', await promisify(gzip)(body, { level: 9 })],
          ];
          for (const [suffix, compressed] of variants) if (compressed.length < body.length) await writeFile(file + suffix, compressed);
        }),
      );
    },
  };
}

const GQL_DIR = path.resolve(import.meta.dirname, 'src/gql');
const GRAPHQL_CALL = /\bgraphql\(\s*`([^`]*)`\s*\)/g;

/**
 * Each graphql(`…`) call becomes its own document, inline in the module that wrote it, as the client
 * preset's babel plugin would do. Through graphql() every operation of every page sat in one map (gql.ts,
 * about 80 KB built) that every page loaded; inline, a page's chunk carries only its own operations. The
 * documents are codegen's (src/gql/graphql.ts, fragments included), so they are what the types describe.
 */
function inlineGraphqlDocuments(): Plugin {
  let documents = new Map<string, string>();
  return {
    name: 'plaza-inline-graphql-documents',
    apply: 'build',
    enforce: 'pre',
    buildStart() {
      const names = new Map<string, string>();
      for (const [, key, name] of readFileSync(path.join(GQL_DIR, 'gql.ts'), 'utf8').matchAll(/^\s+("(?:[^"\\]|\\.)*"): types\.(\w+),$/gm))
        names.set(JSON.parse(key!) as string, name!);
      const bodies = new Map<string, string>();
      for (const [, name, body] of readFileSync(path.join(GQL_DIR, 'graphql.ts'), 'utf8').matchAll(/^export const (\w+) = (\{.*\}) as unknown as DocumentNode/gm))
        bodies.set(name!, body!);
      documents = new Map([...names].map(([source, name]) => [source, bodies.get(name) ?? '']));
    },
    transform(code, id) {
      if (!/\.tsx?$/.test(id) || id.startsWith(GQL_DIR) || !code.includes('graphql(`')) return null;
      return code.replace(GRAPHQL_CALL, (_call, source: string) => {
        const document = documents.get(source);
        // Unknown to codegen: left to graphql(), whose build-time types already refuse it.
        if (!document) this.error(`${id}: a graphql() document that codegen did not generate; run pnpm codegen`);
        return `(${document})`;
      });
    },
  };
}

const STRINGS_FILE = path.resolve(import.meta.dirname, 'src/i18n/strings.ts');
const VIETNAMESE_ENTRY = path.resolve(import.meta.dirname, 'src/i18n/strings-vi.ts');
const ENGLISH_REST_ENTRY = path.resolve(import.meta.dirname, 'src/i18n/strings-en-rest.ts');
const ENGLISH_REST = `${STRINGS_FILE}?words=en-rest`;
/** The English table as strings.ts writes it: `export const en = {`, one entry (or comment) per two-space indent, `} as const;`. */
const ENGLISH_TABLE = /^export const en = \{\n([\s\S]*?)^\} as const;$/m;
/** An entry's key, quoted or bare, at the start of its first line. */
const ENTRY_KEY = /^ {2}(?:'((?:[^'\\]|\\.)*)'|(\w+)):/;

/** strings.ts with its English table keeping only the entries whose key `keep` accepts. */
function englishEntries(code: string, keep: (key: string) => boolean): string {
  const table = ENGLISH_TABLE.exec(code);
  if (!table) throw new Error(`${STRINGS_FILE}: no English table (export const en = { … } as const;) to split`);
  // Each entry or comment starts at two spaces; a long value continues on the lines indented further.
  const items = table[1]!.split(/^(?= {2}\S)/m);
  const kept = items.filter((item) => {
    const key = ENTRY_KEY.exec(item);
    return key ? keep(key[1] ?? key[2]!) : false;
  });
  const start = table.index + table[0].indexOf(table[1]!);
  return code.slice(0, start) + kept.join('') + code.slice(start + table[1]!.length);
}

/**
 * Both languages' words are written side by side in strings.ts, but a page needs only one: strings-vi.ts
 * re-exports the Vietnamese table from a second copy of strings.ts (its own module id), where nothing reads
 * the English table, so the bundler drops it there, as it drops the Vietnamese one from the copy every page
 * imports. A bundler splits modules, not exports: through one module, either chunk would carry both.
 * The English table is split the same way: the copy every page imports keeps the words of the store's first
 * load (i18n/first-load-words.ts), and strings-en-rest.ts reads the others from a third copy.
 */
function splitLocaleStrings(): Plugin {
  return {
    name: 'plaza-split-locale-strings',
    apply: 'build',
    enforce: 'pre',
    async resolveId(source, importer) {
      if (source !== './strings') return null;
      if (importer === VIETNAMESE_ENTRY) return `${STRINGS_FILE}?words=vi`;
      if (importer === ENGLISH_REST_ENTRY) return ENGLISH_REST;
      return null;
    },
    transform(code, id) {
      if (id === STRINGS_FILE) return englishEntries(code, isFirstLoadWord);
      if (id === ENGLISH_REST) return englishEntries(code, (key) => !isFirstLoadWord(key));
      return null;
    },
  };
}

/**
 * rxjs's ES2015 build, for the browsers Vite builds for: its default (ES5) build writes each class out
 * through tslib's helpers, which come with it whole, and is larger itself.
 */
const RXJS_ES2015 = path.join(path.dirname(createRequire(import.meta.url).resolve('rxjs/package.json')), 'dist/esm/index.js');

const APOLLO_PRINT = /[\\/]@apollo[\\/]client[\\/]utilities[\\/]graphql[\\/]print\.js$/;
const PRINT_DOCUMENT = path.resolve(import.meta.dirname, 'src/print-document.ts');

/**
 * Apollo Client prints each document it sends with graphql-js's print, which also prints schemas and block
 * strings: about 7.7 KB of the store's first load. Apollo's print module gets src/print-document.ts instead,
 * which prints operations and fragments to the same text; GraphiQL and everything else keep graphql-js's.
 */
function operationPrinter(): Plugin {
  return {
    name: 'plaza-operation-printer',
    apply: 'build',
    enforce: 'pre',
    resolveId(source, importer) {
      return source === 'graphql' && importer && APOLLO_PRINT.test(importer) ? PRINT_DOCUMENT : null;
    },
  };
}

// In development the API runs separately on :4000; proxying keeps the app same-origin,
// so the session cookie and CSRF rules behave as they do when the server serves web/dist.
const apiServer = 'http://localhost:4000';

export default defineConfig({
  plugins: [inlineGraphqlDocuments(), splitLocaleStrings(), operationPrinter(), react(), precompress()],
  resolve: { alias: [{ find: /^rxjs$/, replacement: RXJS_ES2015 }] },
  server: {
    proxy: {
      '/graphql': { target: apiServer, ws: true },
      '/auth': { target: apiServer },
    },
  },
  build: {
    // Monaco (GraphiQL's editor) is one large lazy chunk that only /graphiql loads; the app's own chunk stays small.
    chunkSizeWarningLimit: 3000,
    rolldownOptions: {
      onwarn(warning, warn) {
        // graphiql ships React Compiler directives ("use no memo") that bundling drops harmlessly.
        if (warning.code === 'MODULE_LEVEL_DIRECTIVE') return;
        warn(warning);
      },
    },
  },
});
