import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'dist/',
      'node_modules/',
      '.temporal/',
      '.durable-agent/',
      'coverage/',
      '.ci/out/',
      '.s3/',
      '.llama/',
      '.node/',
      'apps/console/dist/',
      'bench/workflow-streams/',
      // The chat example's page when built in place (`npm run build` there).
      'examples/chat/dist/',
      'docs/api/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    // The web console's sources (console/src, TSX) are checked against their own tsconfig (DOM types).
    files: ['**/*.ts', 'apps/console/src/**/*.tsx'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // Unawaited promises are the classic bug of workflow and activity code.
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'separate-type-imports' }],
    },
  },
  {
    // Workflow code runs in Temporal's deterministic sandbox: no Node modules, no I/O.
    files: [
      'src/workflows/**/*.ts',
      'src/core/**/*.ts',
      'src/integrations/telemetry/gen-ai.ts',
      'src/integrations/telemetry/workflow-spans.ts',
      'src/integrations/telemetry/workflow-interceptors.ts',
    ],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['node:*', 'fs', 'path', 'crypto', 'child_process', 'http', 'https', 'net', 'os'],
              message: 'Workflow code must not import Node modules.',
            },
            // Type-only imports are erased before bundling; agents/budget-options is pure (core and @temporalio/common).
            {
              group: [
                'zod',
                '@temporalio/activity',
                '@temporalio/worker',
                '@temporalio/client',
                '**/activities/**',
                '**/providers/**',
                '**/store/**',
                '**/agents/**',
                '!**/agents/budget-options',
                '**/worker/**',
              ],
              allowTypeImports: true,
              message: 'Workflow code may import only pure modules and @temporalio/workflow.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    languageOptions: {
      globals: { require: 'readonly', __dirname: 'readonly', module: 'writable', process: 'readonly', console: 'readonly' },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
