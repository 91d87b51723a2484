// Lint rules, including the privilege boundary (ARCHITECTURE.md section 2): only
// services/broker/src/effects/** may spawn processes, open SQLite or touch files;
// clients import broker TYPES only; shared/contract imports nothing from the repo;
// shared/http-guard imports Node built-ins only.
// test/src/architecture.test.ts re-derives the same rules from the source.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const PRIVILEGED_MODULES = [
  { name: 'child_process', message: 'Only services/broker/src/effects/ may spawn processes.' },
  { name: 'node:child_process', message: 'Only services/broker/src/effects/ may spawn processes.' },
  { name: 'better-sqlite3', message: 'Only services/broker/src/effects/ may open SQLite.' },
  { name: 'execa', message: 'Only services/broker/src/effects/ may spawn processes.' },
];
const FS_MODULES = ['fs', 'node:fs', 'fs/promises', 'node:fs/promises'].map((name) => ({
  name,
  message: 'Only services/broker/src/effects/ may touch files (the state directory) in the broker.',
}));
const BROKER_RUNTIME = {
  group: ['@terminal-mcp/broker', '@terminal-mcp/broker/*'],
  allowTypeImports: true,
  message: 'Clients import broker router TYPES only (import type), never broker runtime code.',
};

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', '**/.svelte-kit/**', '**/build/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly', Buffer: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', setImmediate: 'readonly', AbortController: 'readonly', TextEncoder: 'readonly', TextDecoder: 'readonly', fetch: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      'no-control-regex': 'off',
    },
  },
  {
    files: ['services/broker/src/**/*.ts'],
    ignores: ['services/broker/src/effects/**', 'services/broker/src/**/*.test.ts'],
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { paths: [...PRIVILEGED_MODULES, ...FS_MODULES] }] },
  },
  {
    files: ['services/gateway/src/**/*.ts', 'services/observer/src/**/*.ts', 'web/src/**/*.ts', 'shared/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { paths: PRIVILEGED_MODULES, patterns: [BROKER_RUNTIME] }] },
  },
  {
    files: ['shared/contract/src/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        { patterns: [{ regex: '^(?!zod$|zod/|\\.{1,2}/).*', message: 'shared/contract imports zod only.' }] },
      ],
    },
  },
  {
    // The request guards are a leaf every HTTP edge (and the dashboard's Vite bundle) pulls
    // in: Node built-ins only, so they stay pure and cheap to audit.
    files: ['shared/http-guard/src/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        { paths: PRIVILEGED_MODULES, patterns: [{ regex: '^(?!node:|\\.{1,2}/).*', message: 'shared/http-guard imports Node built-ins (node:*) only.' }] },
      ],
    },
  },
);
