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
});
