import type { PolicyKind, ScaffoldKind } from '../schemas';

const POLICY_FILES: Record<PolicyKind, string> = { model: 'model-rollouts', 'gold-replay': 'gold-replays' };

/**
 * The file (without extension) a sample belongs in. Tools rows keep the names they had before there
 * were two scaffolds; bash rows (no `tools` column) go beside them with a `-bash` suffix, so each file
 * loads as one table.
 */
export function sampleFile(policy: PolicyKind, scaffold: ScaffoldKind): string {
  return scaffold === 'tools' ? POLICY_FILES[policy] : `${POLICY_FILES[policy]}-${scaffold}`;
}

/** Every (policy, scaffold) group an export may hold, tools first. */
export const SAMPLE_GROUPS: { policy: PolicyKind; scaffold: ScaffoldKind; file: string }[] = (
  ['tools', 'bash'] as const
).flatMap((scaffold) =>
  (['model', 'gold-replay'] as const).map((policy) => ({ policy, scaffold, file: sampleFile(policy, scaffold) })),
);
