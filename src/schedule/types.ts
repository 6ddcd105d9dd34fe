import type { ArtifactRef, PolicyKind, ScaffoldKind } from '../schemas';
import type { ScheduledRepo } from './repos-file';

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
