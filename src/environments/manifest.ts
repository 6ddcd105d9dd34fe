import type Docker from 'dockerode';
import type { Language, Resolution, RunnerName, ToolchainName } from './contract';
import type { Seed } from './seeds';

/** The image label that holds an environment's manifest (JSON). */
export const MANIFEST_LABEL = 'chainsmith.env.manifest';

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

export async function readManifest(docker: Docker, image: string): Promise<EnvironmentManifest | undefined> {
  const info = await docker.getImage(image).inspect();
  const text = info.Config?.Labels?.[MANIFEST_LABEL];
  return text ? (JSON.parse(text) as EnvironmentManifest) : undefined;
}
