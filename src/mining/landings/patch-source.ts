import type { PullRequest, PullRequestRecord } from '../../schemas';

/** Gives records their patches (from a clone, or from the API); only chain members are ever asked for. */
export type PatchSource = (prs: PullRequestRecord[]) => Promise<PullRequest[]>;
