// Flat ESLint config. The layer rules are the point: a tsconfig cannot stop `import 'vscode'`, lint can.
//   bridge/     Node only: no vscode, no extension/, no webview-ui/
//   webview-ui/ browser only: no vscode, no extension/, no bridge/
//   extension/  may import bridge/ and the host ⇄ webview contract only (webview-ui/contract.ts,
//               viewModel.ts, transcriptOps.ts: the messages, the state they carry, how it
//               changes); of the bridge it uses ACP, the `_zcode/*` contract and the declared process port
//               (`Bridge.process`): never bridge/translate/ (the bridge's own rendering of zcode)
//               nor the zcode client behind `bridge.backend`
//   shared/     the few dependency-free pieces all three layers share (the background-task type,
//               the form rules): importable by bridge/, extension/ and webview-ui/; imports nothing
// The `_zcode/*` extension contract is declared once, in bridge/acp/extensions/contractDescriptors.ts: a
// `'_zcode/…'` string literal anywhere else in the shipped code is an error (tests may use them).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const restrict = (patterns) => ({ 'no-restricted-imports': ['error', { paths: [], patterns }] });

const ZOD_NAMED_Z = {
  selector: "ImportDeclaration[source.value=/^zod/] > ImportSpecifier[imported.name='z']",
  message: "use `import * as z from 'zod'`: the `z` object pulls all of zod's locales (~360 KB) into the bundles (npm run bench -- startup).",
};
const BRIDGE_BACKEND = {
  selector: "MemberExpression[property.name='backend']",
  message: "the extension reaches zcode through ACP, the `_zcode/*` contract or the bridge's process port (`bridge.process`), never through the bridge's zcode client (`bridge.backend`).",
};
const ZCODE_METHOD_LITERAL = {
  // Also the bare names of `EXTENSION_METHOD` (for tests and logs): code calls through the descriptor, whose result is checked.
  selector: "Literal[value=/^_zcode\\//], TemplateElement[value.raw=/^_zcode\\//], MemberExpression[object.name='EXTENSION_METHOD']",
  message: 'a `_zcode/*` method is declared once, in bridge/acp/extensions/contractDescriptors.ts: use its descriptor (e.g. `SteerRequest`, `BackgroundTasksNotification`).',
};

export default tseslint.config(
  { ignores: ['dist/**', 'dist-vsix/**', 'node_modules/**', '.vscode-test/**', 'ci-artifacts/**', 'test/zcode-sim/**', '**/*.cjs', '**/*.js', '**/*.mjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': 'error',
    },
  },
  {
    files: ['bridge/**/*.ts'],
    rules: restrict([
      { group: ['vscode'], message: 'bridge/ is plain Node: it may not import vscode.' },
      { group: ['**/extension/**', '../extension', '../../extension'], message: 'bridge/ may not import extension/.' },
      { group: ['**/webview-ui/**'], message: 'bridge/ may not import webview-ui/.' },
    ]),
  },
  {
    files: ['webview-ui/**/*.ts', 'webview-ui/**/*.tsx'],
    rules: restrict([
      { group: ['vscode'], message: 'webview-ui/ runs in a browser: it may not import vscode.' },
      { group: ['**/extension/**'], message: 'webview-ui/ may not import extension/.' },
      { group: ['**/bridge/**'], message: 'webview-ui/ may not import bridge/.' },
    ]),
  },
  {
    files: ['extension/**/*.ts'],
    rules: restrict([
      {
        group: [
          '**/webview-ui/**',
          ...['contract', 'viewModel', 'transcriptOps'].flatMap((name) => [`!**/webview-ui/${name}`, `!**/webview-ui/${name}.ts`]),
        ],
        message: 'extension/ may import from webview-ui/ only the host ⇄ webview contract: contract.ts, viewModel.ts, transcriptOps.ts.',
      },
      {
        group: ['**/bridge/translate/**'],
        message: "bridge/translate/ is the bridge's rendering of zcode into ACP: the extension reads what the bridge sends (ACP, the `_zcode/*` contract); what both layers need goes to shared/.",
      },
    ]),
  },
  {
    files: ['shared/**/*.ts'],
    rules: restrict([{ regex: '^(?!\\./)', message: 'shared/ is imported by every layer: it may import only other files of shared/.' }]),
  },
  {
    // Bundled code only (dist/): the named `z` export is a namespace object esbuild cannot tree-shake.
    files: ['shared/**/*.ts', 'bridge/**/*.ts', 'extension/**/*.ts', 'webview-ui/**/*.ts', 'webview-ui/**/*.tsx'],
    rules: { 'no-restricted-syntax': ['error', ZOD_NAMED_Z, ZCODE_METHOD_LITERAL] },
  },
  {
    // The extension talks to zcode only through the declared seams (ACP, `_zcode/*`, `bridge.process`).
    files: ['extension/**/*.ts'],
    rules: { 'no-restricted-syntax': ['error', ZOD_NAMED_Z, ZCODE_METHOD_LITERAL, BRIDGE_BACKEND] },
  },
  {
    // The one module that declares the `_zcode/*` names.
    files: ['bridge/acp/extensions/contractDescriptors.ts'],
    rules: { 'no-restricted-syntax': ['error', ZOD_NAMED_Z] },
  },
  {
    files: ['bridge/cli.ts', 'test/**/*.ts', 'scripts/**/*.ts'],
    rules: { 'no-console': 'off' },
  },
);
