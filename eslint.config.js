import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const ONLY_ROUTES_KNOW_FASTIFY = {
  regex: '^(fastify|@fastify/)',
  message: 'Only routes know Fastify: take an OperationEntry, a Logger (src/platform/logger.ts) or plain data instead.',
};
const DRAWS_READ_GAME_TABLES_ONLY = { regex: '(^|/)games/(?!tables\\.ts$)', message: 'src/modules/draws may read the games tables only.' };
const GAMES_NEVER_IMPORT_DRAWS = { regex: '(^|/)draws/', message: 'src/modules/games must not import src/modules/draws.' };

export default tseslint.config(
  { ignores: ['.tmp/**', 'node_modules/', 'data/', 'coverage/', 'web/admin/dist/'] },
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
  // Layering inside src/modules (docs/architecture.md, "A feature module"). ESLint keeps one
  // options list per rule for a file (a later block replaces an earlier one), so each block
  // below says everything that applies to the files it names.
  {
    // Services own sequences and transactions; only routes know Fastify.
    files: ['src/modules/**/*.ts'],
    ignores: ['src/modules/**/*routes.ts', 'src/modules/draws/**', 'src/modules/games/**'],
    rules: { 'no-restricted-imports': ['error', { patterns: [ONLY_ROUTES_KNOW_FASTIFY] }] },
  },
  {
    // Games and draws are separate features: in-house game admin lives with the draws it
    // configures (src/modules/draws/admin-games.ts), and draws read only the games' tables.
    files: ['src/modules/draws/**/*.ts'],
    ignores: ['src/modules/**/*routes.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [ONLY_ROUTES_KNOW_FASTIFY, DRAWS_READ_GAME_TABLES_ONLY] }] },
  },
  {
    files: ['src/modules/draws/**/*routes.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [DRAWS_READ_GAME_TABLES_ONLY] }] },
  },
  {
    files: ['src/modules/games/**/*.ts'],
    ignores: ['src/modules/**/*routes.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [ONLY_ROUTES_KNOW_FASTIFY, GAMES_NEVER_IMPORT_DRAWS] }] },
  },
  {
    files: ['src/modules/games/**/*routes.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [GAMES_NEVER_IMPORT_DRAWS] }] },
  },
  {
    files: ['src/modules/**/*routes.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "MemberExpression[object.name='ctx'][property.name='db']",
          message: 'A route does not query the database: call a service method that does.',
        },
      ],
    },
  },
  {
    // The back office (web/): react-admin's records are `any` by design (RaRecord), read field by field.
    files: ['web/**/*.{ts,tsx}'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    files: ['bin/**/*.js', 'eslint.config.js'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: { globals: { process: 'readonly' }, parserOptions: { projectService: false } },
  },
);
