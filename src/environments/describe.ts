import type { Environment } from '../sandbox/environment';

/** One true sentence or two about a stage's environment, for the agent's system prompt. */
export function describeEnvironment(env: Pick<Environment, 'language' | 'recipe' | 'testCommand'>): string {
  const installed = env.recipe.setup.length
    ? `The project's environment was built from its ${env.recipe.origin} recipe${env.language === 'unknown' ? '' : ` (${env.language})`}; what it installs is all there is.`
    : 'No dependencies were installed for this project beyond the base system (git, Python 3 with pytest).';
  return `${installed} Its tests run with \`${env.testCommand}\`.`;
}
