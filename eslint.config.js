// @ts-check
import { readdirSync } from 'node:fs';
import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/** Feature folders of apps/web/src/features. */
const WEB_FEATURES = ['admin', 'auth', 'deliveries', 'jobs', 'logs', 'map', 'profile', 'robots', 'settings'];

/**
 * The server's folders (apps/server/src) in layers, lowest first. A folder imports folders of lower layers only,
 * never its own layer's or a higher one's, so no import cycle runs between folders. The one exception is the layer
 * marked `cycles: true`: the job's life and the robot link import each other today (issue #26 item 8 reshapes
 * them); inside it, folders may import each other. The shared layers (`shared: true`) do not import the app's
 * context (context.ts, which names the services of the feature folders) either. Every folder of apps/server/src must be listed (checked below);
 * tests and the test support folders (`testing`, `fuzz`) are not layered: they may build the whole app.
 */
const SERVER_LAYERS = [
  { folders: ['db'], shared: true },
  { folders: ['lib'], shared: true },
  { folders: ['identity', 'dose', 'groups', 'contacts', 'settings'] },
  { folders: ['users', 'robots', 'seed'] },
  { folders: ['robot-link', 'jobs', 'actions', 'live', 'deliveries', 'notifications', 'metrics'], cycles: true },
  { folders: ['rooms', 'audit', 'mail', 'logs', 'reports', 'plugins'] },
  { folders: ['recovery', 'webhooks'] },
];
const SERVER_TEST_SUPPORT = ['testing', 'fuzz'];
/**
 * Two leaves every layer may import: the caller's type and the author of changes the database layer hands to the
 * audit triggers. They import nothing of the server themselves.
 */
const SERVER_LEAVES = ['identity/principal.ts', 'audit/context.ts'];

const serverFolders = readdirSync(new URL('apps/server/src/', import.meta.url), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);
const unlayered = serverFolders.filter(
  (folder) => !SERVER_TEST_SUPPORT.includes(folder) && !SERVER_LAYERS.some((layer) => layer.folders.includes(folder)),
);
if (unlayered.length > 0) {
  throw new Error(`eslint.config.js: put apps/server/src/${unlayered.join(', ')} in a layer of SERVER_LAYERS`);
}

const escapeRegex = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** `folder/` as an import path's target, except the leaves inside it. */
const folderTarget = (folder) => {
  const leaves = SERVER_LEAVES.filter((leaf) => leaf.startsWith(`${folder}/`)).map((leaf) => `${escapeRegex(leaf.slice(folder.length + 1))}$`);
  return leaves.length === 0 ? `${folder}/` : `${folder}/(?!${leaves.join('|')})`;
};

const SIM_MESSAGE = 'The server does not run the simulator: it is a separate process (apps/robot-sim).';
/** The simulator rule below, repeated in each layered folder's rule (a later config's options replace an earlier's). */
const noSimulator = {
  paths: [{ name: '@uvd/robot-sim', message: SIM_MESSAGE }],
  patterns: [
    { group: ['@uvd/robot-sim/*'], message: SIM_MESSAGE },
    { regex: 'robot-sim/', message: SIM_MESSAGE },
  ],
};
const serverProductFiles = (glob) => ({ files: [glob], ignores: ['apps/server/src/**/*.test.ts'] });

export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/dist/**', '**/data/**', 'apps/server/drizzle/**', 'e2e-artifacts/**', 'apps/mobile/android/**', 'apps/mobile/ios/**'] },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      // Fastify plugins and route handlers are async functions by contract even when they await nothing.
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/no-unnecessary-condition': ['error', { allowConstantLoopConditions: true }],
    },
  },
  { files: ['apps/web/src/**/*.{ts,tsx}'], ...reactHooks.configs.flat.recommended },
  // Web console layers (as bulletproof-react lays out a React app): shared → features → app; never across features.
  {
    files: ['apps/web/src/{components,config,lib,locales,testing}/**/*.{ts,tsx}'],
    ignores: ['apps/web/src/testing/render-app.tsx'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ regex: '^(\\.\\./)+(features|app)/', message: 'Shared layers do not import features or the app shell.' }] },
      ],
    },
  },
  ...WEB_FEATURES.map((feature) => ({
    files: [`apps/web/src/features/${feature}/**/*.{ts,tsx}`],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: `^(\\.\\./)+(app|features|${WEB_FEATURES.filter((other) => other !== feature).join('|')})/`,
              message: 'A feature imports shared layers only: not the app shell, not another feature.',
            },
          ],
        },
      ],
    },
  })),
  // The simulator is a client of the server, never part of it: product code does not import it (tests may play
  // robots with it).
  {
    files: ['apps/server/src/**/*.ts'],
    ignores: ['apps/server/src/**/*.test.ts', 'apps/server/src/testing/**'],
    rules: { 'no-restricted-imports': ['error', noSimulator] },
  },
  // Server layers (SERVER_LAYERS above): imports go down the layers, and only app.ts (the plugins in order) and
  // server.ts (listen and shut down) see the whole app.
  ...SERVER_LAYERS.flatMap((layer, index) =>
    layer.folders.map((folder) => {
      const above = SERVER_LAYERS.slice(index + (layer.cycles === true ? 1 : 0))
        .flatMap((higher) => higher.folders)
        .filter((other) => other !== folder);
      const targets = ['app\\.ts$', 'server\\.ts$', ...(layer.shared === true ? ['context\\.ts$'] : []), ...above.map(folderTarget)];
      return {
        ...serverProductFiles(`apps/server/src/${folder}/**/*.ts`),
        rules: {
          'no-restricted-imports': [
            'error',
            {
              ...noSimulator,
              patterns: [
                ...noSimulator.patterns,
                {
                  regex: `^(\\.\\./)+(${targets.join('|')})`,
                  message: `Server layers (eslint.config.js SERVER_LAYERS): ${folder}/ imports only folders of lower layers, and never app.ts or server.ts${layer.shared === true ? ' or context.ts' : ''}.`,
                },
              ],
            },
          ],
        },
      };
    }),
  ),
  {
    ...serverProductFiles('apps/server/src/{config,context}.ts'),
    rules: {
      'no-restricted-imports': [
        'error',
        { ...noSimulator, patterns: [...noSimulator.patterns, { regex: '^\\./(app|server)\\.ts$', message: 'Only server.ts and the tests import app.ts.' }] },
      ],
    },
  },
  {
    files: SERVER_LEAVES.map((leaf) => `apps/server/src/${leaf}`),
    rules: {
      'no-restricted-imports': [
        'error',
        { ...noSimulator, patterns: [...noSimulator.patterns, { regex: '^\\.', message: 'A leaf every server layer imports: it imports nothing of the server.' }] },
      ],
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: { globals: globals.node },
  },
);
