import { z } from 'zod';
import type { ArtifactStore } from '../artifacts/store';
import type { ChatMessage } from '../model/client';
import { ArtifactRef } from '../schemas/artifact';
import { ProposalSchema } from './proposal';

const Count = z.number().int().nonnegative();

/**
 * Where the setup agent got to on one stage, saved after every model reply and every recipe's outcome
 * (SetupRun.save; the validateGold activity keeps it behind a pointer in the artifact store,
 * SetupCheckpoint), so that a retried activity goes on from there instead of asking the model again for
 * what it answered. The conversation is one blob per message, referenced in order (TranscriptBlobs).
 */
export const SetupProgressSchema = z.object({
  /** The stage it belongs to: progress of another stage (or another base) is not resumed. */
  repo: z.string(),
  pr: z.number().int(),
  baseSha: z.string(),
  /** The recipe under way (0-based) and the model calls it has taken so far. */
  attempt: Count,
  step: Count,
  /** Replies of this recipe that fit nothing so far (Conversation's MALFORMED bound). */
  problems: z.array(z.string()),
  /** The outcome's reasons so far: detection's, then one per failed recipe. */
  reasons: z.array(z.string()),
  transcript: z.array(ArtifactRef),
  /** The propose_recipe call awaiting the build's answer. */
  pending: z.string().optional(),
  /** The recipe proposed for `attempt` and not yet built: a retry builds it without asking again. */
  proposal: ProposalSchema.optional(),
  requests: Count,
  promptTokens: Count,
  completionTokens: Count,
});
export type SetupProgress = z.infer<typeof SetupProgressSchema>;

/** How one stage's call reaches the agent from an activity: its cancellation, and where its progress is kept. */
export interface SetupRun {
  /** Stops the model call in flight and every call after it (the activity's cancellationSignal()). */
  signal?: AbortSignal;
  /** What an earlier try of this stage saved (SetupCheckpoint.load); resumed where it matches the stage. */
  resume?: SetupProgress;
  /** Keeps the progress (SetupCheckpoint.save); called after every model reply and every recipe's outcome. */
  save?: (progress: SetupProgress) => void | Promise<void>;
}

/**
 * One activity's setup-agent progress behind a named pointer in the artifact store, written at once
 * (heartbeat details are throttled by the worker: a kill could lose several replies' worth), and
 * shared across hosts where the store is. The name holds the workflow run and the activity's id,
 * which every retry of the activity keeps and no other activity has.
 */
export class SetupCheckpoint {
  constructor(
    private readonly store: ArtifactStore,
    private readonly pointer: string,
  ) {}

  /** The last progress saved, or undefined (none, or one this code or store can no longer read: the stage starts afresh). */
  async load(): Promise<SetupProgress | undefined> {
    const ref = await this.store.getPointer(this.pointer);
    if (!ref) return undefined;
    const progress = await this.store.getJson(ref, SetupProgressSchema).catch(() => undefined);
    const transcript = progress && (await TranscriptBlobs.load(this.store, progress.transcript).catch(() => undefined));
    return transcript ? progress : undefined;
  }

  async save(progress: SetupProgress): Promise<void> {
    await this.store.setPointer(this.pointer, await this.store.putJson(progress));
  }

  /** The stage has its record: a later run of it starts afresh. */
  async clear(): Promise<void> {
    await this.store.removePointer(this.pointer);
  }
}

/** A message as the artifact store keeps it (written by this code, read back as it was). */
const MessageSchema = z.looseObject({ role: z.string() }) as unknown as z.ZodType<ChatMessage>;

/**
 * A conversation kept one blob per message. A transcript only grows, so a save writes the messages added
 * since the last save and refers to the earlier ones: saving after every reply costs what the reply
 * adds, not the whole conversation again (a 50-call stage would otherwise store about 25 copies of it).
 */
export class TranscriptBlobs {
  private readonly refs: ArtifactRef[];

  /** `saved`: the refs a resumed progress holds, for the messages it was loaded with. */
  constructor(
    private readonly store: ArtifactStore,
    saved: readonly ArtifactRef[] = [],
  ) {
    this.refs = [...saved];
  }

  /** The refs of `messages`, whose first ones are those saved before. */
  async save(messages: readonly ChatMessage[]): Promise<ArtifactRef[]> {
    if (messages.length < this.refs.length) throw new Error('a transcript only grows: fewer messages than saved');
    for (const message of messages.slice(this.refs.length)) this.refs.push(await this.store.putJson(message));
    return [...this.refs];
  }

  static load(store: ArtifactStore, refs: readonly ArtifactRef[]): Promise<ChatMessage[]> {
    return Promise.all(refs.map((ref) => store.getJson(ref, MessageSchema)));
  }
}

/** A pointer name's part: what the store allows in one (a workflow id may hold anything). */
const part = (text: string) => text.replace(/[^\w.-]+/g, '-');

/** The checkpoint of one activity (every retry of it), by its workflow run and id; none outside a workflow, where nothing retries it. */
export function activityCheckpoint(
  store: ArtifactStore,
  info: { activityId: string; workflowExecution?: { workflowId: string; runId: string } },
): SetupCheckpoint | undefined {
  const run = info.workflowExecution;
  return run
    ? new SetupCheckpoint(store, `setup-agent/${part(run.workflowId)}/${part(run.runId)}/${part(info.activityId)}`)
    : undefined;
}

/**
 * The checkpoint of one stage in a process without Temporal (`validate`): by chain and stage (one PR
 * at another stage starts from another carry), kept until the agent is done with the stage, so the
 * same command run again after a crash resumes it.
 */
export function stageCheckpoint(store: ArtifactStore, chainId: string, stage: number): SetupCheckpoint {
  return new SetupCheckpoint(store, `setup-agent/stages/${part(chainId)}/${stage}`);
}
