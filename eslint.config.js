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
    // What the package loads when imported costs every controller: an ESM import of node:http
    // reads its every export, and three are getters loading Node's bundled undici (~2.5 MiB).
    files: ['src/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        { paths: [{ name: 'node:http', message: "use process.getBuiltinModule('node:http'): an ESM import loads Node's bundled undici", allowTypeImports: true }] },
      ],
    },
  },
  {
    files: ['eslint.config.js'],
    ...tseslint.configs.disableTypeChecked,
  },
);
