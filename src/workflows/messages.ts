import { defineSearchAttributeKey } from '@temporalio/common';
import { defineQuery } from '@temporalio/workflow';
import type { ArtifactRef, PolicyKind, StageResult } from '../schemas';

export interface ChainWorkflowInput {
  chainId: string;
  repo: string;
  prNumbers: number[];
  chainRef: ArtifactRef;
  queriesRef: ArtifactRef;
  policy: PolicyKind;
  maxRefinements: number;
}

export type ChainStatus = 'running' | 'accepted' | 'rejected' | 'failed';

export interface ChainProgress {
  status: ChainStatus;
  stage: number;
  stages: number;
  round: number;
  reason?: string;
  results: StageResult[];
}

export interface ChainResult extends ChainProgress {
  sampleId?: string;
  datasetPath?: string;
}

export const progressQuery = defineQuery<ChainProgress>('progress');

export const ChainRepo = defineSearchAttributeKey('ChainRepo', 'KEYWORD');
export const ChainLength = defineSearchAttributeKey('ChainLength', 'INT');
export const ChainStage = defineSearchAttributeKey('ChainStage', 'INT');
export const ChainStatusKey = defineSearchAttributeKey('ChainStatus', 'KEYWORD');

/** Idempotent: the same chain and policy always map to the same workflow id. */
export function chainWorkflowId(repo: string, prNumbers: number[], policy: PolicyKind): string {
  return `chain-${repo.replace(/[^\w.-]+/g, '-')}-${prNumbers.join('-')}-${policy}`;
}
