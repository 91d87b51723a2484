// Lint rules, including the privilege boundary (docs/architecture.md section 2): only
// services/broker/src/effects/** may spawn processes, open SQLite or touch files;
// clients import broker TYPES only; shared/contract imports nothing from the repo;
// shared/http-guard imports Node built-ins only; the broker opens no network connection
// (eslint-rules/no-network-egress.js). Inside the broker, the layers
// (docs/architecture.md section 3): bin -> rpc -> use cases -> access -> policy (pure) and
// effects (adapters); an import never points up.
// test/src/architecture.test.ts re-derives the same rules from the source.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { terminalMcpPlugin } from './eslint-rules/no-module-state.js';
import { capabilityZones } from './eslint-rules/capability-zones.js';

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

// The broker's layers, by top-level folder of services/broker/src. Relative imports only
// (a folder's name after any number of `../`); type imports count too.
const USE_CASES = ['attention', 'audit', 'grants', 'input', 'lifecycle', 'live', 'nodes', 'notes', 'oauth', 'projects', 'reads', 'registry', 'sources', 'supervisor', 'transcripts', 'webauth'];
const up = (folders) => `^(\\.\\./)+(${folders.join('|')})(/|$)`;
const ROOT_FILES = '^(\\.\\./)+(start-broker|index)\\.js$';
const BROKER_LAYERS = [
  {
    files: ['services/broker/src/policy/**/*.ts'],
    patterns: [{ regex: '^(?!@terminal-mcp/contract$|\\./)', message: 'policy/ is pure: it imports only policy/ and @terminal-mcp/contract.' }],
  },
  {
    files: ['services/broker/src/config/**/*.ts'],
    patterns: [{ regex: '^\\.\\./(?!policy/)', message: 'config/ sits on policy/ only: it imports no access, use case, rpc, effects or bin code.' }],
  },
  {
    files: ['services/broker/src/effects/**/*.ts'],
    patterns: [
      { regex: up(['access', ...USE_CASES, 'rpc', 'bin', 'testing']), message: 'effects/ are adapters at the bottom: they import no access, use case, rpc or bin code.' },
      { regex: ROOT_FILES, message: 'effects/ never import the composition root.' },
    ],
  },
  {
    files: ['services/broker/src/access/**/*.ts'],
    patterns: [
      { regex: up([...USE_CASES, 'rpc', 'bin', 'testing']), message: 'access/ sits below the use cases: it imports only policy, config and effects.' },
      { regex: ROOT_FILES, message: 'access/ never imports the composition root.' },
    ],
  },
  {
    files: USE_CASES.map((f) => `services/broker/src/${f}/**/*.ts`),
    patterns: [
      { regex: up(['rpc', 'bin', 'testing']), message: 'Use cases do not know the transport: no rpc/ or bin/ imports (take a Caller from access/caller.ts).' },
      { regex: ROOT_FILES, message: 'Use cases never import the composition root.' },
    ],
  },
  {
    files: ['services/broker/src/rpc/**/*.ts'],
    patterns: [
      { regex: up(['bin', 'testing']), message: 'rpc/ imports no bin/ code.' },
      { regex: ROOT_FILES, message: 'rpc/ never imports the composition root.' },
    ],
  },
];
// THE reader (docs/architecture.md section 3): only these files of the broker read pane
// content or a pane's identity from tmux. The reader module reads (delivery-reads.ts: the
// reads input delivery makes of the pane it types into, identity under the lock and the
// text at the cursor); the gate it asks resolves a session's named pane and a binding's
// pinned pane. effects/ implements the calls. test/src/architecture.test.ts derives every
// caller from the source and fails on one not listed here.
const PANE_READ_CALLS = ['capturePane', 'capturePaneWithFacts', 'paneFacts', 'paneHint', 'readIdentity', 'readPaneIdentity', 'listPanes'];
const PANE_TEXT_READS = ['readPaneWindow', 'readPaneLines', 'startEarlyCapture'];
const PANE_READERS = [
  'services/broker/src/reads/session-reader.ts',
  'services/broker/src/reads/pane-text.ts',
  'services/broker/src/reads/delivery-reads.ts',
  'services/broker/src/access/gate.ts',
  'services/broker/src/access/target.ts',
];
const oneOf = (names) => `/^(${names.join('|')})$/`;
const readerMessage = 'Only THE reader (reads/session-reader.ts) reads pane content or identity: go through SessionReader (tail, statusOf, follow) instead.';
const readerZone = {
  files: ['services/broker/src/**/*.ts'],
  ignores: ['services/broker/src/effects/**', 'services/broker/src/**/*.test.ts', 'services/broker/src/**/*.testkit.ts', ...PANE_READERS],
  rules: {
    'no-restricted-syntax': [
      'error',
      { selector: `MemberExpression[property.name=${oneOf(PANE_READ_CALLS)}]`, message: readerMessage },
      { selector: `ObjectPattern > Property[key.name=${oneOf(PANE_READ_CALLS)}]`, message: readerMessage },
      { selector: `TSTypeReference[typeName.name='Pick'] Literal[value=${oneOf(PANE_READ_CALLS)}]`, message: readerMessage },
      { selector: `ImportSpecifier[imported.name=${oneOf([...PANE_TEXT_READS, 'readPaneIdentity'])}]`, message: readerMessage },
    ],
  },
};

const layerBlocks = BROKER_LAYERS.map(({ files, patterns }) => ({
  files,
  ignores: ['services/broker/src/**/*.test.ts', 'services/broker/src/**/*.testkit.ts'],
  rules: {
    '@typescript-eslint/no-restricted-imports': [
      'error',
      // Re-states the privilege paths: a later block replaces a rule's options, it does not merge them.
      { paths: files.some((f) => f.startsWith('services/broker/src/effects/')) ? [] : [...PRIVILEGED_MODULES, ...FS_MODULES], patterns },
    ],
  },
}));

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
  ...layerBlocks,
  readerZone,
  {
    // Long-lived state has an owner built by a composition root (eslint-rules/no-module-state.js).
    // shared/ and the dashboard's server code too (issue 47): they run inside the services.
    files: ['services/*/src/**/*.ts', 'shared/*/src/**/*.ts', 'web/src/lib/server/**/*.ts'],
    ignores: ['**/*.test.ts', '**/*.testkit.ts'],
    plugins: { 'terminal-mcp': terminalMcpPlugin },
    rules: { 'terminal-mcp/no-module-state': 'error' },
  },
  {
    // The broker opens no network connection (eslint-rules/no-network-egress.js): the
    // notifier process delivers notices; the broker's clients reach Unix sockets only.
    files: ['services/broker/src/**/*.ts'],
    ignores: ['**/*.test.ts', '**/*.testkit.ts'],
    plugins: { 'terminal-mcp': terminalMcpPlugin },
    rules: { 'terminal-mcp/no-network-egress': 'error' },
  },
  // Each broker folder imports only the effects services/broker/src/capabilities.ts declares for it.
  ...capabilityZones,
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
