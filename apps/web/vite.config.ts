import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The dev server proxies what the Node server answers (API, identity provider, runtime config), so the SPA talks
// to the same origin in development as in production and the XSRF cookie stays first-party.
const server = 'http://localhost:8080';

export default defineConfig({
  plugins: [react()],
  server: {
    port: 5173,
    proxy: {
      '/api': server,
      '/idp': server,
      '/config.json': server,
    },
  },
  build: {
    outDir: 'dist',
    sourcemap: true,
    rolldownOptions: {
      treeshake: {
        // The contracts only declare schemas; a screen that uses none of a module's exports need not load it.
        moduleSideEffects: (id: string) => !id.includes('/packages/contracts/'),
      },
    },
  },
});
