import type Docker from 'dockerode';
import { TransientError } from '../errors';
import type { Resolution } from './contract';
import type { Language, RunnerName, ToolchainName } from './languages';

/** The image label that holds an environment's manifest (JSON). */
export const MANIFEST_LABEL = 'chainsmith.env.manifest';

/** What a build started from an earlier era's image reused, recorded on the manifest (seeds.ts finds it). */
export interface Seed {
  image: string;
  /** The commit the seed image was built at. */
  builtAt: string;
  /** What the recipe reuses from it (LanguageRecipe.reuse). */
  reused: string;
  /** 1 for a seed built from its toolchain, one more per seeded build before it. */
  depth: number;
}

/** What an environment image holds and how it was made: recorded on the image, read by whoever uses it. */
export interface EnvironmentManifest {
  repo: string;
  language: Language;
  origin: string;
  runner: RunnerName;
  /** The commit the image was built at (its setup ran on that tree). */
  builtAt: string;
  toolchain: {
    name: ToolchainName;
    image: string;
    /** What the toolchain reported in the built image ('Python 3.11.2', 'gcc (Debian 12.2.0-14) 12.2.0 / cmake version 3.25.1'). */
    version: string;
    /** The version the recipe asked for, and why another was chosen, where it did. */
    wanted?: string;
    note?: string;
  };
  /** What the host resolved and fetched; absent where the recipe fetches nothing. */
  resolution?: Resolution & { key: string; fetchSeconds: number };
  /** The earlier era's image this one was built from, and what it reused; absent where it was built from the toolchain. */
  seed?: Seed;
  buildSeconds: number;
  createdAt: string;
}

/**
 * The image's details, or undefined where the engine has no such image (404). Any other failure (the
 * engine down or restarting) is transient: taken for "missing", it would start a build, or fail a stage
 * for good, while dockerd restarts.
 */
export async function inspectImage(docker: Docker, image: string): Promise<Docker.ImageInspectInfo | undefined> {
  try {
    return await docker.getImage(image).inspect();
  } catch (err) {
    if ((err as { statusCode?: number }).statusCode === 404) return undefined;
    throw new TransientError(`cannot look up the image ${image} in the Docker engine: ${(err as Error).message}`, {
      cause: err,
    });
  }
}

/** The environment manifest an image carries; undefined where there is no such image, or it carries none. */
export async function readManifest(docker: Docker, image: string): Promise<EnvironmentManifest | undefined> {
  const text = (await inspectImage(docker, image))?.Config?.Labels?.[MANIFEST_LABEL];
  return text ? (JSON.parse(text) as EnvironmentManifest) : undefined;
}
