// Lint configuration: typescript-eslint's strict, type-checked rules over everything we ship and test.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'packages/*/dist/**', 'dist-demo/**', 'dist-docs/**', 'node_modules/**', 'coverage/**', '.doc-examples/**', 'hack/codemods/**'] },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  ...tseslint.configs.stylisticTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: { allowDefaultProject: ['eslint.config.js'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      // Template literals with numbers are how we build URLs and messages; they are not a bug source here.
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true, allowBoolean: true }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // What the package loads when imported costs every controller: an ESM import of a built-in
    // module reads its every export, and some are getters that load more of Node: node:http's and
    // node:https's load Node's bundled undici (~2.5 MiB), node:tls's `rootCertificates` parses the
    // CA list, node:util's and node:crypto's load parseArgs, diff and webcrypto (1.8 MiB with
    // node:http2's). process.getBuiltinModule reads only what is used. The CLI and the sync agent
    // start the same way. envtest runs in tests only.
    files: ['src/**/*.ts', 'packages/*/src/**/*.ts'],
    ignores: ['src/envtest/**'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: ['node:http', 'node:https', 'node:http2', 'node:tls', 'node:util', 'node:crypto'].map((name) => ({
            name,
            message: `use process.getBuiltinModule('${name}'): an ESM import reads every export, and loads what the getters among them load`,
            allowTypeImports: true,
          })),
        },
      ],
    },
  },
  {
    files: ['eslint.config.js'],
    ...tseslint.configs.disableTypeChecked,
  },
);
