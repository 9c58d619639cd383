import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';

const brotli = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

/**
 * Writes `.br` and `.gz` beside every script, stylesheet, SVG and HTML file of the build, at the highest levels
 * (once per build, not per request); the server sends them to browsers that accept them (plugins/spa.ts).
 */
const precompress = (): Plugin => ({
  name: 'uvd-precompress',
  apply: 'build',
  async writeBundle(options, bundle) {
    const outDir = options.dir ?? 'dist';
    const files = Object.keys(bundle).filter((file) => /\.(js|css|svg|html)$/.test(file));
    await Promise.all(
      files.map(async (file) => {
        const target = path.join(outDir, file);
        const content = await readFile(target);
        const [br, gz] = await Promise.all([
          brotli(content, { params: { [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY, [constants.BROTLI_PARAM_SIZE_HINT]: content.length } }),
          gzipAsync(content, { level: constants.Z_BEST_COMPRESSION }),
        ]);
        await Promise.all([writeFile(`${target}.br`, br), writeFile(`${target}.gz`, gz)]);
      }),
    );
  },
});

// The dev server proxies what the Node server answers (API, identity provider, runtime config), so the SPA talks
// to the same origin in development as in production and the XSRF cookie stays first-party.
const server = 'http://localhost:8080';

export default defineConfig({
  plugins: [react(), precompress()],
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
