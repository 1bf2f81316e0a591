// The CommonJS entry of the server half (require('@plaza/app-sdk/server')), made from the finished ES
// modules in dist/ (shared code vendored, version stamped), so both entries run the same code.
import { defineConfig } from 'rolldown';

export default defineConfig({
  input: 'dist/server/index.js',
  platform: 'node',
  // jose is a real dependency (ES modules only: Node 20.19+ requires it as it is).
  external: [/^node:/, 'jose'],
  output: { file: 'dist/server/index.cjs', format: 'cjs' },
});
