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
    // Services own sequences and transactions; routes parse, call one service method and present
    // (docs/architecture.md, "A feature module"). The games module joins once its own move is done.
    files: ['src/modules/**/*.ts'],
    ignores: ['src/modules/**/*routes.ts', 'src/modules/games/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(fastify|@fastify/)',
              message: 'Only routes know Fastify: take an OperationEntry, a Logger (src/platform/logger.ts) or plain data instead.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src/modules/**/*routes.ts'],
    ignores: ['src/modules/games/**'],
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
    files: ['bin/**/*.js', 'eslint.config.js'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: { globals: { process: 'readonly' }, parserOptions: { projectService: false } },
  },
);
