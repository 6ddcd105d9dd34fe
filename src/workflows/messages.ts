import { defineSearchAttributeKey } from '@temporalio/common';
import { defineQuery, defineSignal } from '@temporalio/workflow';
import type { ArtifactRef, PolicyKind, ScaffoldKind, StageResult } from '../schemas';

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
  /** Set by continue-as-new: where the previous run stopped. */
  resume?: {
    stage: number;
    queriesRef?: ArtifactRef;
    conversationRef?: ArtifactRef;
    carryPatchRef?: ArtifactRef;
    results: StageResult[];
    hosts: string[];
    /** The stages' gold validations, and the chain as cut to its verifiable stages. */
    goldTestsRefs?: ArtifactRef[];
    chainRef?: ArtifactRef;
  };
}

/** What gold validation says of one stage before anything is spent on it. */
export interface StageCheck {
  goldTestsRef: ArtifactRef;
  status: 'verified' | 'no-verifying-test' | 'invalid';
  /** Something can judge the stage: a FAIL_TO_PASS test, or a judge model for this policy. */
  judgeable: boolean;
  /** Why it cannot be judged, when it cannot. */
  reason?: string;
}

/** 'skipped': not even the first stage could be judged, so nothing was rolled out. */
export type ChainStatus = 'validating' | 'running' | 'paused' | 'accepted' | 'rejected' | 'failed' | 'cancelled' | 'skipped';

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
  /** The chain's queries, once written. */
  queriesRef?: ArtifactRef;
  results: StageResult[];
}

export interface ChainResult extends ChainProgress {
  sampleId?: string;
  datasetPath?: string;
}

export const progressQuery = defineQuery<ChainProgress>('progress');
/** Stops the agent after its current step (saved) and holds the chain until `resume`. */
export const pauseSignal = defineSignal('pause');
export const resumeSignal = defineSignal('resume');

export const ChainRepo = defineSearchAttributeKey('ChainRepo', 'KEYWORD');
export const ChainLength = defineSearchAttributeKey('ChainLength', 'INT');
export const ChainStage = defineSearchAttributeKey('ChainStage', 'INT');
export const ChainStatusKey = defineSearchAttributeKey('ChainStatus', 'KEYWORD');
export const ChainScaffold = defineSearchAttributeKey('ChainScaffold', 'KEYWORD');

/**
 * Idempotent: the same chain, policy and scaffold always map to the same workflow id. The tools
 * scaffold keeps the ids it had before there were two, so existing runs are found again; the bash
 * scaffold's runs end in `-bash` and never collide with them.
 */
export function chainWorkflowId(repo: string, prNumbers: number[], policy: PolicyKind, scaffold: ScaffoldKind = 'tools'): string {
  return `chain-${repo.replace(/[^\w.-]+/g, '-')}-${prNumbers.join('-')}-${policy}${scaffold === 'tools' ? '' : `-${scaffold}`}`;
}
