import type { ProgressListener } from '../../progress';
import type { GitHubClient } from './client';
import type { DiskCache } from './disk-cache';

/** What every step of a GitHub mine needs: the client, the repository, the cache. */
export interface GitHubContext {
  client: GitHubClient;
  owner: string;
  name: string;
  baseUrl: string;
  /** GitHub's GraphQL API needs a token; without one the miner walks REST. */
  hasToken: boolean;
  cache: DiskCache;
  now: () => number;
  onProgress?: ProgressListener;
}
