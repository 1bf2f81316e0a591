import 'reflect-metadata';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../config.js';
import { buildPlazaSchema, printPlazaSchema } from '../app/schema.js';

const file = path.join(REPO_ROOT, 'schema.graphql');
writeFileSync(file, printPlazaSchema(await buildPlazaSchema()));
console.log(`wrote ${path.relative(REPO_ROOT, file)}`);
