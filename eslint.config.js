// Lint rules that keep mistakes out which the compiler lets through: promises nobody awaits, and
// workflow code that reaches for Node or for modules that do I/O (workflows must replay deterministically).
const tseslint = require('typescript-eslint');
const { builtinModules } = require('node:module');

module.exports = tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', '**/*.js'] },
  {
    files: ['src/**/*.ts', 'test/**/*.ts', 'bench/**/*.ts'],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: { projectService: true, tsconfigRootDir: __dirname },
    },
    plugins: { '@typescript-eslint': tseslint.plugin },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
      // Compiled to CommonJS, a local named `exports` hides the module's own exports object (it did once).
      'no-restricted-syntax': [
        'error',
        { selector: 'VariableDeclarator[id.name=/^(exports|module|require)$/]', message: 'this name hides a CommonJS module binding once compiled' },
      ],
    },
  },
  {
    files: ['src/workflows/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: `^(node:.*|${builtinModules.join('|')})$`,
              message: 'workflow code runs in a deterministic sandbox: no Node built-ins',
            },
            {
              // Types from anywhere are fine; values only from the SDK and the workflows folder itself.
              regex: '^(?!@temporalio/(workflow|common)$|\\./).*',
              allowTypeImports: true,
              message: 'workflow code imports values only from @temporalio/workflow, @temporalio/common and src/workflows (use `import type` for the rest)',
            },
          ],
        },
      ],
    },
  },
);
