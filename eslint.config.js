// ESLint (flat config): JavaScript's and typescript-eslint's recommended rules, sorted imports, and
// the project's own strictness (no unused variables or parameters, no any, no non-null assertions,
// type-only imports marked). Formatting is Prettier's (see .prettierrc.json), so no style rules here.
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import simpleImportSort from 'eslint-plugin-simple-import-sort';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default defineConfig(
  {
    ignores: [
      'node_modules/',
      '.data/',
      '.serverless/',
      '.esbuild/',
      '.esbuild-offline/',
      '.build/',
      '.console-build/',
      '.cue-runtime-layer*/',
      'test-output/',
      'coverage/',
    ],
  },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    files: ['**/*.{ts,tsx,mjs,cjs,js}'],
    languageOptions: { globals: { ...globals.node } },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    plugins: { 'simple-import-sort': simpleImportSort },
    rules: {
      'simple-import-sort/imports': 'error',
      'simple-import-sort/exports': 'error',
      // Unused parameters count too; a leading _ marks one that a signature needs but the body does not use.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { args: 'all', argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'all', caughtErrorsIgnorePattern: '^_' },
      ],
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-non-null-assertion': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      // A comma expression hides a second statement, even in parentheses (the evaluator had such lines).
      'no-sequences': ['error', { allowInParentheses: false }],
    },
  },
  {
    // The console runs in the browser.
    files: ['console/**'],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    // The process environment is read in lib/settings only (docs/architecture.md, "Settings").
    files: ['lib/**', 'functions/**'],
    ignores: ['lib/settings/**'],
    rules: {
      'no-restricted-properties': [
        'error',
        { object: 'process', property: 'env', message: 'read the environment in lib/settings (application.conf, environment.ts)' },
      ],
    },
  },
  {
    // CommonJS files: require() is how they load modules.
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
