import type { WorkKind, WorkRecord } from '../../src/work-journal';

/** The kinds that are units: one model call, one test command, one environment build. */
export const UNIT_KINDS: WorkKind[] = ['model', 'test', 'build'];

/** The work one kill made chainsmith do again. */
export interface RedoneAfterKill {
  /** Units started again, of which `completed` had finished before the kill (nothing but a lost result made them run again). */
  units: number;
  completed: number;
  /** Seconds the earlier attempts of everything started again had spent (up to the kill where it was under way), units or not. */
  seconds: number;
  /** What was redone, by activity and kind: `judgeStage/model 1, validateGold/test 2`. */
  what: Map<string, number>;
}

interface Attempt {
  id: string;
  kind: WorkKind;
  activity: string;
  start: number;
  end?: number;
}

/**
 * From a chain's work journal and its kill times: per kill, what was started again after it that an
 * earlier attempt had started before it. A second start of an id goes to the first kill after the
 * attempt before it started; one with no kill between the two is redone work no kill explains,
 * returned apart (a unit id that is not stable, or the product doing something twice by itself).
 */
export function redoneByKill(
  journal: WorkRecord[],
  kills: number[],
): { perKill: RedoneAfterKill[]; withoutKill: number } {
  const attempts = new Map<string, Attempt[]>();
  const open = new Map<string, Attempt>();
  for (const r of [...journal].sort((a, b) => a.t - b.t || (a.ev === 'start' ? -1 : 1))) {
    const key = `${r.pid} ${r.id}`;
    if (r.ev === 'start') {
      const a: Attempt = { id: r.id, kind: r.kind, activity: r.activity, start: r.t };
      attempts.set(r.id, [...(attempts.get(r.id) ?? []), a]);
      open.set(key, a);
    } else {
      const a = open.get(key);
      if (a) a.end = r.t;
      open.delete(key);
    }
  }
  const perKill: RedoneAfterKill[] = kills.map(() => ({ units: 0, completed: 0, seconds: 0, what: new Map() }));
  let withoutKill = 0;
  for (const tries of attempts.values()) {
    for (let i = 1; i < tries.length; i++) {
      const [before, again] = [tries[i - 1], tries[i]];
      // The kill that lost the earlier attempt: the first after it started (a kill that came while the
      // new worker was still starting lost nothing more of it).
      const k = kills.findIndex((t) => t > before.start && t < again.start);
      if (k < 0) {
        withoutKill += 1;
        continue;
      }
      const finished = before.end !== undefined && before.end <= kills[k];
      const lost = (Math.min(before.end ?? kills[k], kills[k]) - before.start) / 1000;
      const r = perKill[k];
      r.seconds += lost;
      if (!UNIT_KINDS.includes(again.kind)) continue;
      r.units += 1;
      if (finished) r.completed += 1;
      const label = `${again.activity}/${again.kind}${finished ? '' : ' (under way)'}`;
      r.what.set(label, (r.what.get(label) ?? 0) + 1);
    }
  }
  return { perKill, withoutKill };
}
