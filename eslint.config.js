// Lint rules that keep mistakes out which the compiler lets through: promises nobody awaits, workflow
// code that reaches for Node or for modules that do I/O (workflows must replay deterministically), and
// imports against the layering of docs/architecture.md, and circles of imports.
const tseslint = require('typescript-eslint');
const importX = require('eslint-plugin-import-x');
const { builtinModules } = require('node:module');
const noTypeCycle = require('./eslint/no-type-cycle');

/** Relative imports of the given top-level folders of src/, from a file in a folder of src/ at any depth. */
const into = (...folders) => `^(\\.\\./)+(${folders.join('|')})(/.*)?$`;
/** The same from a file directly in src/ (from a folder, `./stage` is a sibling such as schemas/stage.ts). */
const fromRoot = (...folders) => `^\\./(${folders.join('|')})(/.*)?$`;
const ORCHESTRATION = ['activities', 'workers', 'cli', 'schedule', 'batches'];
const STAGES = [
  'mining',
  'queries',
  'container',
  'environments',
  'stage',
  'agent',
  'rollout',
  'judge',
  'dataset',
  'report',
  'demo',
];
/** A pipeline stage does not reach up into the orchestration layer (workflow types, such as a chain's result, may be read). */
const STAGE_PATTERNS = [
  {
    regex: into(...ORCHESTRATION),
    message: 'a pipeline stage does not reach up into activities, workers, the CLI, schedules or batch starts',
  },
  {
    regex: into('workflows'),
    allowTypeImports: true,
    message: 'only types from src/workflows below the orchestration layer',
  },
];

const enginePatterns = (reach) => [
  { regex: reach(...ORCHESTRATION, 'workflows'), message: 'the engines do not reach up into the orchestration layer' },
  { regex: reach(...STAGES), message: 'the engines and root modules do not depend on a pipeline stage' },
];

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
        {
          selector: 'VariableDeclarator[id.name=/^(exports|module|require)$/]',
          message: 'this name hides a CommonJS module binding once compiled',
        },
      ],
    },
  },
  {
    // No circles in src: each module can be read, tested and moved with only what it imports. Circles of
    // value imports are import-x's to find (any depth); those closed by a type-only import, which it
    // skips, the local rule's.
    files: ['src/**/*.ts'],
    plugins: { 'import-x': importX, chainsmith: { rules: { 'no-type-cycle': noTypeCycle } } },
    settings: {
      'import-x/extensions': ['.ts'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
      'import-x/resolver-next': [importX.createNodeResolver({ extensions: ['.ts', '.js', '.json'] })],
    },
    rules: { 'import-x/no-cycle': 'error', 'chainsmith/no-type-cycle': 'error' },
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
              message:
                'workflow code imports values only from @temporalio/workflow, @temporalio/common and src/workflows (use `import type` for the rest)',
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
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { patterns: STAGE_PATTERNS }] },
  },
  {
    // A stage's sandbox is assembled from an environment and a container: environments build on
    // containers and know nothing of stages (these rules replace the block above for these files, so
    // they repeat its patterns).
    files: ['src/environments/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            ...STAGE_PATTERNS,
            {
              regex: into('stage'),
              message: 'environments sit below src/stage: a stage is built from an environment, not the other way',
            },
          ],
        },
      ],
    },
  },
  {
    // The container is the floor of the sandbox side: a Docker container and its shell, nothing of what runs in it.
    files: ['src/container/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            ...STAGE_PATTERNS,
            {
              regex: into('environments', 'stage', 'agent', 'rollout', 'judge'),
              message: 'src/container sits below environments, stages and what uses them',
            },
          ],
        },
      ],
    },
  },
  {
    // The CLI is the top: commands call into everything below and nothing calls into them.
    files: ['src/{activities,workers,schedule,batches}/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        { patterns: [{ regex: into('cli'), message: 'only the CLI imports the CLI' }] },
      ],
    },
  },
  {
    // The engines (model client, artifact store, schemas) and the root modules serve every stage and use
    // none; config.ts is the exception, as it gathers each stage's settings into one schema.
    files: ['src/{model,artifacts,schemas}/**/*.ts'],
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { patterns: enginePatterns(into) }] },
  },
  {
    files: ['src/*.ts'],
    ignores: ['src/config.ts'],
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { patterns: enginePatterns(fromRoot) }] },
  },
);
