import type { ArtifactRef, PolicyKind, ScaffoldKind, StageReason, StageResult } from '../schemas';

/**
 * The records workflows and activities exchange: types only, so activities, the CLI and the dataset
 * can name them without importing workflow code (and activities ⇄ workflows is no import cycle).
 */

export interface ChainWorkflowInput {
  chainId: string;
  repo: string;
  prNumbers: number[];
  chainRef: ArtifactRef;
  policy: PolicyKind;
  /** The agent's protocol; absent (runs started before there were two) is 'tools'. */
  scaffold?: ScaffoldKind;
  maxRefinements: number;
  /** How soon a silent rollout (a dead worker) is retried. */
  heartbeatTimeoutSeconds: number;
  /** Set by continue-as-new: the chain's state where the previous run stopped. */
  state?: ChainState;
}

/**
 * Everything a chain run knows between steps, as one serialisable record: continue-as-new passes it
 * to the next run as it is. References only; transcripts and patches stay in the artifact store.
 */
export interface ChainState {
  /** What the progress query shows; the chain's result when it ends. */
  progress: ChainProgress;
  /** The chain the stages run from: the input's, or the input's cut before a stage nothing can judge. */
  chainRef: ArtifactRef;
  /** Every stage's gold validation, once done. */
  goldTestsRefs?: ArtifactRef[];
  /** The agent's conversation so far: every stage's rounds, which the next round continues. */
  conversationRef?: ArtifactRef;
  /** The agent's cumulative patch up to its last accepted stage: what the next stage starts from. */
  carryPatchRef?: ArtifactRef;
  /** Hosts that ran a round of this chain: its cleanup removes what they hold. */
  hosts: string[];
}

/** What gold validation says of one stage before anything is spent on it. */
export interface StageCheck {
  goldTestsRef: ArtifactRef;
  status: 'verified' | 'no-verifying-test' | 'invalid';
  /** Something can judge the stage: a FAIL_TO_PASS test, or a judge model for this policy. */
  judgeable: boolean;
  /** Why it cannot be judged, when it cannot. */
  reason?: string;
  /** Why it is not verified, typed and whole (the kind, the failing command, its exit code and last lines). */
  detail?: StageReason;
}

interface Unjudgeable {
  stage: number;
  prNumber: number;
  reason: StageReason;
}

/** 'skipped': not even the first stage could be judged, so nothing was rolled out. */
export type ChainStatus =
  | 'validating'
  | 'running'
  | 'paused'
  | 'accepted'
  | 'rejected'
  | 'failed'
  | 'cancelled'
  | 'skipped';

export interface ChainProgress {
  status: ChainStatus;
  stage: number;
  stages: number;
  round: number;
  reason?: string;
  /**
   * Set when a stage could not be judged: the chain runs only the stages before it (`before` of them),
   * as the chain stored at `chainRef`.
   */
  cut?: { before: number; reason: string; chainRef: ArtifactRef };
  /** The first stage nothing can judge, with its typed reason: the chain was cut before it, or skipped where it is the first. */
  unjudgeable?: Unjudgeable;
  /** The chain's queries, once written. */
  queriesRef?: ArtifactRef;
  results: StageResult[];
}

export interface ChainResult extends ChainProgress {
  sampleId?: string;
  datasetPath?: string;
}

/** One chain of a batch: the batch list lives in the artifact store and is read a page at a time. */
export interface BatchEntry {
  workflowId: string;
  input: ChainWorkflowInput;
}

// A schedule's runs (src/schedule/): the schedule workflow's input and report, and what its activity hands back.

/** One repository a schedule mines: a clone fetched before each run, or a GitHub name (with a clone to run in). */
export interface ScheduledRepo {
  /** A clone's absolute path, or "github:owner/name": what the run's report names. */
  source: string;
  clone?: string;
  github?: string;
  /** Recorded on the chains (and so in workflow ids); default the folder name, or the GitHub name. */
  name?: string;
  branch?: string;
  /** The clone's remote to fetch (default origin). */
  remote?: string;
  /** Each run's mine asks the configured model about candidate links (mine --judge-links); without a model a note says so. */
  judgeLinks?: boolean;
}

/** The mine options a schedule keeps for every run (a rerun with others would be refused by the cursor). */
export interface ScheduleMineOptions {
  maxLength?: number;
  minConfidence?: number;
  blameDays?: number;
  minStrength?: 'strong' | 'weak';
  requireTests?: boolean;
  mergedAfter?: string;
  mergedBefore?: string;
}

/** What each scheduled run is started with: the same input every time; the cursors hold the progress. */
export interface ScheduledRunInput {
  scheduleId: string;
  repos: ScheduledRepo[];
  mine: ScheduleMineOptions;
  start: { policy: PolicyKind; scaffold: ScaffoldKind; concurrency: number };
}

/** One repository of one run: the chains new since the last run, and the batch that runs them. */
export interface MinedForSchedule {
  source: string;
  newChains: string[];
  batch?: { workflowId: string; batchRef: ArtifactRef; total: number };
}

/** What a run did, kept in its memo under `report` (so the UI and `status` show it, failed runs included). */
export interface ScheduledRunReport {
  started: { source: string; newChains: number; chains: string[]; batchWorkflowId?: string }[];
  failed: { source: string; reason: string }[];
}
