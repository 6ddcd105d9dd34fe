import type { LanguageRecipe, RepoFiles } from '../contract';

/** Stub until the Rust module (branch env2) is merged: detects nothing, so Rust repositories get no recipe yet. */
export async function detectRust(_files: RepoFiles): Promise<LanguageRecipe | undefined> {
  return undefined;
}
