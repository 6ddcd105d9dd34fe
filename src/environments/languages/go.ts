import type { LanguageRecipe, RepoFiles } from '../contract';

/** Stub until the Go module (branch env2) is merged: detects nothing, so Go repositories get no recipe yet. */
export async function detectGo(_files: RepoFiles): Promise<LanguageRecipe | undefined> {
  return undefined;
}
