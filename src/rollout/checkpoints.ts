import { z } from 'zod';
import type { ArtifactStore } from '../artifacts/store';
import { ArtifactRef, MessageSchema, TrajectorySchema, type Trajectory } from '../schemas';

const RecordSchema = z.object({
  prev: ArtifactRef.nullable(),
  /** The conversation as the round began; only the first record carries it. */
  base: ArtifactRef.optional(),
  /** Messages added since the previous record. */
  segment: ArtifactRef,
  header: TrajectorySchema.omit({ messages: true }),
  progressPatchRef: ArtifactRef,
  stepsThisRound: z.number().int().nonnegative(),
});

export interface Checkpoint {
  trajectory: Trajectory;
  progressPatchRef: ArtifactRef;
  stepsThisRound: number;
}

/**
 * A round's checkpoints as a linked list of small records, one per agent step, behind a named pointer.
 * Each record stores only the messages new since the last one, so saving step n costs O(new messages),
 * not O(conversation): a 1,000-step rollout writes its transcript about once, not 1,000 times.
 */
export class RoundCheckpoints {
  private last: { ref: ArtifactRef; messages: number } | undefined;

  constructor(
    private readonly store: ArtifactStore,
    private readonly pointer: string,
  ) {}

  async load(): Promise<Checkpoint | undefined> {
    const head = await this.store.getPointer(this.pointer);
    if (!head) return undefined;
    const records: z.infer<typeof RecordSchema>[] = [];
    for (let ref: ArtifactRef | null = head; ref; ) {
      const record: z.infer<typeof RecordSchema> = await this.store.getJson(ref, RecordSchema);
      records.unshift(record);
      ref = record.prev;
    }
    const base = await this.store.getJson(records[0].base!, TrajectorySchema);
    const messages = [...base.messages];
    for (const r of records) messages.push(...(await this.store.getJson(r.segment, z.array(MessageSchema))));
    const latest = records[records.length - 1];
    this.last = { ref: head, messages: messages.length };
    return {
      trajectory: { ...latest.header, messages },
      progressPatchRef: latest.progressPatchRef,
      stepsThisRound: latest.stepsThisRound,
    };
  }

  /** `start` is the conversation the round began with; needed for the first record only. */
  async save(start: Trajectory, t: Trajectory, progressPatch: string, stepsThisRound: number): Promise<void> {
    const from = this.last?.messages ?? start.messages.length;
    const { messages, ...header } = t;
    const record = {
      prev: this.last?.ref ?? null,
      base: this.last ? undefined : await this.store.putJson(start),
      segment: await this.store.putJson(messages.slice(from)),
      header,
      progressPatchRef: await this.store.put(progressPatch),
      stepsThisRound,
    };
    const ref = await this.store.putJson(record);
    await this.store.setPointer(this.pointer, ref);
    this.last = { ref, messages: messages.length };
  }
}
