// @ts-check
import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/** Feature folders of apps/web/src/features. */
const WEB_FEATURES = ['admin', 'auth', 'deliveries', 'jobs', 'logs', 'map', 'profile', 'robots', 'settings'];

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
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [{ name: '@uvd/robot-sim', message: 'The server does not run the simulator: it is a separate process (apps/robot-sim).' }],
          patterns: [
            { group: ['@uvd/robot-sim/*'], message: 'The server does not run the simulator: it is a separate process (apps/robot-sim).' },
            { regex: 'robot-sim/', message: 'The server does not run the simulator: it is a separate process (apps/robot-sim).' },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: { globals: globals.node },
  },
);
