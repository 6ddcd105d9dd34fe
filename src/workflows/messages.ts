import { defineSearchAttributeKey } from '@temporalio/common';
import { defineQuery, defineSignal } from '@temporalio/workflow';
import type { PolicyKind, ScaffoldKind } from '../schemas';
import type { ChainProgress } from './types';

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
export function chainWorkflowId(
  repo: string,
  prNumbers: number[],
  policy: PolicyKind,
  scaffold: ScaffoldKind = 'tools',
): string {
  return `chain-${repo.replace(/[^\w.-]+/g, '-')}-${prNumbers.join('-')}-${policy}${scaffold === 'tools' ? '' : `-${scaffold}`}`;
}
