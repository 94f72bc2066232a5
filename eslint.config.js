import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['.tmp/**', 'node_modules/', 'data/', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // node:test's describe/test return promises the runner itself awaits.
      '@typescript-eslint/no-floating-promises': [
        'error',
        { allowForKnownSafeCalls: [{ from: 'package', package: 'node:test', name: ['describe', 'test', 'it', 'suite'] }] },
      ],
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
    },
  },
  {
    // Platform is the floor features stand on: it never reaches up into a feature.
    files: ['src/platform/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { regex: '(^|/)modules/', message: 'src/platform must not import from src/modules; pass what it needs in from app.ts.' },
          ],
        },
      ],
    },
  },
  {
    // Games and draws are separate features: in-house game admin lives with the draws it
    // configures (src/modules/draws/admin-games.ts), and draws read only the games' tables.
    files: ['src/modules/draws/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ regex: '(^|/)games/(?!tables\\.ts$)', message: 'src/modules/draws may read the games tables only.' }] },
      ],
    },
  },
  {
    // Game services take plain data and a Logger (src/platform/logger.ts): Fastify stays in routes.
    files: ['src/modules/games/**/*.ts'],
    ignores: ['src/modules/games/**/routes.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [{ regex: '(^|/)draws/', message: 'src/modules/games must not import src/modules/draws.' }],
          paths: [{ name: 'fastify', message: 'A game service takes plain data and a Logger; Fastify belongs to routes.' }],
        },
      ],
    },
  },
  {
    files: ['src/modules/games/**/routes.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ regex: '(^|/)draws/', message: 'src/modules/games must not import src/modules/draws.' }] },
      ],
    },
  },
  {
    files: ['bin/**/*.js', 'eslint.config.js'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: { globals: { process: 'readonly' }, parserOptions: { projectService: false } },
  },
);
