import type Docker from 'dockerode';
import { git } from '../git';
import { MANIFEST_LABEL, type EnvironmentManifest, type Seed } from './manifest';

/** On an environment image whose recipe reuses earlier eras' state: the lineage it can seed (see `lineageKey`). */
export const LINEAGE_LABEL = 'chainsmith.env.lineage';
/** Each seeded build adds a layer on its seed's; past this depth a build starts again from the toolchain (Docker allows ~125 layers). */
export const MAX_SEED_DEPTH = 40;

/**
 * The environment image of the same lineage (repository history, recipe kind, toolchain image) whose
 * build commit is nearest before `sha` in time, else nearest after it: its compiled dependencies are
 * those most likely unchanged. Images built at commits this clone does not hold are passed over.
 */
export async function findSeed(
  docker: Docker,
  lineage: string,
  repoPath: string,
  sha: string,
  reused: string,
): Promise<Seed | undefined> {
  const images = await docker.listImages({ filters: { label: [`${LINEAGE_LABEL}=${lineage}`] } });
  const at = await commitTime(repoPath, sha);
  if (at === undefined) return undefined;
  let before: { seed: Seed; t: number } | undefined;
  let after: { seed: Seed; t: number } | undefined;
  for (const info of images) {
    const tag = info.RepoTags?.find((t) => t !== '<none>:<none>');
    const text = info.Labels?.[MANIFEST_LABEL];
    if (!tag || !text) continue;
    const manifest = JSON.parse(text) as EnvironmentManifest;
    const depth = (manifest.seed?.depth ?? 0) + 1;
    if (depth > MAX_SEED_DEPTH) continue;
    const t = await commitTime(repoPath, manifest.builtAt);
    if (t === undefined) continue;
    const seed = { image: tag, builtAt: manifest.builtAt, reused, depth };
    if (t <= at && (!before || t > before.t)) before = { seed, t };
    if (t > at && (!after || t < after.t)) after = { seed, t };
  }
  return (before ?? after)?.seed;
}

async function commitTime(repoPath: string, sha: string): Promise<number | undefined> {
  return git(repoPath, ['show', '-s', '--format=%ct', `${sha}^{commit}`, '--'])
    .then((out) => Number(out.trim()))
    .catch(() => undefined);
}
