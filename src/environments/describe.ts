import type { Environment } from './builder';
import { languageTitle } from './languages';
import { prTestCommand } from './pr-tests';

/** A few true sentences about a stage's environment, from its manifest, for the agent's system prompt. */
export function describeEnvironment(env: Environment): string {
  const m = env.manifest;
  const language = languageTitle(m.language);
  const toolchain = m.toolchain.version ? ` (${m.toolchain.version.split('\n')[0]})` : '';
  const what = language ? `a ${language} toolchain${toolchain}` : `only the base system${toolchain}`;
  const deps = m.resolution?.packages.length
    ? ` and the project's ${m.resolution.packages.length} dependencies (${m.resolution.lock === 'committed' ? 'from its lock file' : `resolved${m.resolution.asOf ? ` as of ${m.resolution.asOf.slice(0, 10)}` : ''}`})`
    : env.recipe.setup.length
      ? " and what the project's build set up"
      : ', with no dependencies of the project installed';
  // Go before go.mod builds only from the checkout's place in GOPATH: from the checkout itself its packages lose their import paths.
  const where = env.recipe.workDir
    ? ` Run the project's commands (go build, go test) from \`${env.recipe.workDir}\`, where the repository is linked: not from the repository's own directory.`
    : '';
  return `The environment has ${what}${deps}; nothing else can be installed. The project's tests run with \`${prTestCommand(env, [])}\`.${where}`;
}
