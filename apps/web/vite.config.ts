import { readFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import purgeCss from '@fullhuman/postcss-purgecss';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';
import { VitePWA } from 'vite-plugin-pwa';
import type { ManifestOptions } from 'vite-plugin-pwa';
import { z } from 'zod';
import type { Language } from './src/lib/i18n.ts';
import { MANIFEST_LANGS, manifestPathOf } from './src/lib/manifest-language.ts';

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

/** The contracts only declare schemas; a bundle that uses none of a module's exports need not carry it. */
const contractsHaveNoSideEffects = (id: string) => !id.includes('/packages/contracts/');

/** The theme's primary (the navigation bar) and page background (styles/theme.css). */
const THEME_COLOR = '#4b2a85';
const BACKGROUND_COLOR = '#f6f5fa';

const AppTexts = z.object({ app: z.object({ name: z.string(), description: z.string() }) });

/**
 * The manifest in one language: its name, description and lang from that language's locale file, the one place
 * the console's texts live; the console links the one of its language (src/lib/manifest-language.ts).
 */
const manifestOf = (language: Language): Partial<ManifestOptions> => {
  const { app } = AppTexts.parse(JSON.parse(readFileSync(path.join(import.meta.dirname, 'src/locales', `${language}.json`), 'utf8')));
  return {
    name: app.name,
    short_name: 'UVD',
    description: app.description,
    id: '/',
    start_url: '/',
    scope: '/',
    display: 'standalone',
    lang: MANIFEST_LANGS[language],
    theme_color: THEME_COLOR,
    background_color: BACKGROUND_COLOR,
    icons: [
      { src: '/icons/icon-192.png', sizes: '192x192', type: 'image/png', purpose: 'any' },
      { src: '/icons/icon-512.png', sizes: '512x512', type: 'image/png', purpose: 'any' },
      { src: '/icons/icon-maskable-512.png', sizes: '512x512', type: 'image/png', purpose: 'maskable' },
    ],
  };
};

/** The other languages' manifests beside the default one. */
const languageManifests = (): Plugin => ({
  name: 'uvd-language-manifests',
  apply: 'build',
  generateBundle() {
    for (const language of ['fi', 'se'] as const satisfies readonly Language[]) {
      this.emitFile({ type: 'asset', fileName: manifestPathOf(language).slice(1), source: `${JSON.stringify(manifestOf(language))}\n` });
    }
  },
});

/**
 * The installable console (web app manifest) and its service worker, our own src/sw.ts (injectManifest):
 * precaching of the build and Web Push. The app registers it itself (lib/push/register-service-worker.ts), after
 * the page's load event, with no registration script in index.html.
 */
const pwa = () =>
  VitePWA({
    strategies: 'injectManifest',
    srcDir: 'src',
    filename: 'sw.ts',
    injectRegister: false,
    registerType: 'autoUpdate',
    manifest: manifestOf('en'),
    includeAssets: ['favicon.svg', 'icons/badge-96.png'],
    injectManifest: {
      // Scripts, styles and the shell; source maps and the .br/.gz copies stay on the server.
      globPatterns: ['**/*.{js,css,html}'],
      // Vite's hashed files need no revision of their own.
      dontCacheBustURLsMatching: /^assets\//,
      rollupOptions: { treeshake: { moduleSideEffects: contractsHaveNoSideEffects } },
    },
  });

/**
 * Bootstrap's stylesheet without the rules no screen uses (most of its utilities): every first visit downloads
 * and parses less, and each render's style recalculation matches fewer selectors. Kept: every class named in
 * the console's source or index.html, and the families whose names are put together at run time: those of the
 * react-bootstrap components the console uses (`btn-${variant}`, a modal's `show`) and the colour utilities a
 * component is given a variant for (`bg-${bg}`).
 */
const unusedCss = () =>
  purgeCss({
    content: ['index.html', 'src/**/*.{ts,tsx}', '../../node_modules/react-toastify/dist/*.js'].map((glob) =>
      path.join(import.meta.dirname, glob),
    ),
    // The source's names also appear inside template literals, attribute values and quoted lists.
    defaultExtractor: (content) => content.match(/[\w-/:%.]+(?<!:)/g) ?? [],
    safelist: {
      standard: [
        // The react-bootstrap components the console uses put their class names together from a prefix
        // (`${prefix}-dialog`): their whole families stay. Every other component is plain markup in the source.
        /^(btn|form|col-form-label|was-validated|is-valid|is-invalid|invalid|valid|table|alert|modal|card|badge|fade|show|rounded-pill)(-|$)/,
        // The colour utilities a component is given a variant for (`<Badge bg="success">`, `text="dark"`).
        /^(bg|text|text-bg|border|link)-(primary|secondary|success|danger|warning|info|light|dark|body|white|black|muted)(-subtle|-emphasis)?$/,
      ],
      // State classes Bootstrap styles in combination (`.btn.active`, `.modal.show .modal-dialog`).
      deep: [/^modal-open$/],
      greedy: [/Toastify/],
    },
    // Bootstrap's CSS variables and keyframes are referenced from rules kept above.
    variables: false,
    keyframes: false,
    fontFace: false,
  });

// The dev server proxies what the Node server answers (API, identity provider, runtime config), so the SPA talks
// to the same origin in development as in production and the XSRF cookie stays first-party.
const server = 'http://localhost:8080';

/**
 * The chunks of what the lazy screens share (the build's `shared` group): rolldown names each after every screen
 * that loads it (`shared~sign-in~reports~...`, up to 120 characters), and `shared-<hash>` is enough. Any other
 * file keeps rolldown's name.
 */
const SHARED_CHUNKS = 'shared';
const fileName = (name: string | undefined, extension: string): string =>
  `assets/${name?.startsWith(`${SHARED_CHUNKS}~`) ? SHARED_CHUNKS : '[name]'}-[hash]${extension}`;

export default defineConfig(({ command }) => ({
  plugins: [react(), pwa(), languageManifests(), precompress()],
  css: { postcss: { plugins: command === 'build' ? [unusedCss()] : [] } },
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
      treeshake: { moduleSideEffects: contractsHaveNoSideEffects },
      // What index.html loads first is one script: rolldown would otherwise split off each module a lazy screen
      // shares with the shell (react-router, the query client, the api's small modules) into a chunk of its own,
      // sixteen requests that compress worse apart (153.5 KB gzip against 146.6 KB, bench/README.md).
      // What the lazy screens share goes in chunks by the screens that load them, as rolldown would split it, but one
      // under 16 KB joins its nearest neighbour instead of standing alone: rolldown made 51 files under 2 KB, each a
      // request of its own when a screen opens and again when the service worker precaches the build. Precached files
      // 109 -> 66; installing the worker after a first visit took 0.59-0.86 s of CPU in Chromium against 0.92-1.23
      // (four visits each, twice); eleven screens opened after sign-in loaded 14 files, 52.3 KB, against 27, 46.2 KB.
      output: {
        codeSplitting: {
          groups: [
            { name: 'initial', tags: ['$initial'] },
            { name: SHARED_CHUNKS, minShareCount: 2, entriesAware: true, entriesAwareMergeThreshold: 16 * 1024 },
          ],
        },
        chunkFileNames: (chunk) => fileName(chunk.name, '.js'),
        assetFileNames: (asset) => fileName(asset.names[0], '[extname]'),
      },
    },
  },
}));
