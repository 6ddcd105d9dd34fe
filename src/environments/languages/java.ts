import type { LanguageRecipe, RepoFiles } from '../contract';

/** Stub until the Java module (branch env2) is merged: detects nothing, so Java repositories get no recipe yet. */
export async function detectJava(_files: RepoFiles): Promise<LanguageRecipe | undefined> {
  return undefined;
}
