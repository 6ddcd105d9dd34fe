// Lint rules that keep mistakes out which the compiler lets through: promises nobody awaits, workflow
// code that reaches for Node or for modules that do I/O (workflows must replay deterministically), and
// imports against the layering of docs/architecture.md.
const tseslint = require('typescript-eslint');
const { builtinModules } = require('node:module');

/** Relative imports of the given top-level folders of src/, from any depth. */
const into = (...folders) => `^\\.{1,2}/(\\.\\./)*(${folders.join('|')})(/.*)?$`;
const ORCHESTRATION = ['activities', 'workers', 'cli', 'schedule', 'batches'];
const STAGES = ['mining', 'queries', 'environments', 'sandbox', 'agent', 'rollout', 'judge', 'dataset', 'report', 'demo'];

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
              // Types from anywhere are fine; values only from the SDK, the workflows folder itself and
              // src/retry-budget.ts (plain numbers: the activities' attempts are counted there with the other layers).
              regex: '^(?!@temporalio/(workflow|common)$|\\./|\\.\\./retry-budget$).*',
              allowTypeImports: true,
              message: 'workflow code imports values only from @temporalio/workflow, @temporalio/common and src/workflows (use `import type` for the rest)',
            },
          ],
        },
      ],
    },
  },
  {
    // The pipeline's stages and the engines under them know nothing of Temporal's wiring or the CLI
    // (workflow types, such as a chain's result, may be read).
    files: [`src/{${STAGES.join(',')}}/**/*.ts`],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            { regex: into(...ORCHESTRATION), message: 'a pipeline stage does not reach up into activities, workers, the CLI, schedules or batch starts' },
            { regex: into('workflows'), allowTypeImports: true, message: 'only types from src/workflows below the orchestration layer' },
          ],
        },
      ],
    },
  },
  {
    // The CLI is the top: commands call into everything below and nothing calls into them.
    files: ['src/{activities,workers,schedule,batches}/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', { patterns: [{ regex: into('cli'), message: 'only the CLI imports the CLI' }] }],
    },
  },
  {
    // The engines (model client, artifact store, schemas) and the root modules serve every stage and use
    // none; config.ts is the exception, as it gathers each stage's settings into one schema.
    files: ['src/{model,artifacts,schemas}/**/*.ts', 'src/*.ts'],
    ignores: ['src/config.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            { regex: into(...ORCHESTRATION, 'workflows'), message: 'the engines do not reach up into the orchestration layer' },
            { regex: into(...STAGES), message: 'the engines and root modules do not depend on a pipeline stage' },
          ],
        },
      ],
    },
  },
);
