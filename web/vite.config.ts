import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// In development the API runs separately on :4000; proxying keeps the app same-origin,
// so the session cookie and CSRF rules behave as they do when the server serves web/dist.
const apiServer = 'http://localhost:4000';

export default defineConfig({
  plugins: [react()],
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
