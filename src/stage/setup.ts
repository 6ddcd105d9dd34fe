import { StageError } from '../errors';
import { stageReason } from '../stage-reason';
import type { Carry, Chain } from '../schemas';
import { CARRY_PATCH, CARRY_TAG, carryScript, parseCarry, prepareScript, PROGRESS_PATCH } from './carryover';
import type { DockerContainer } from '../container/docker-container';

/** Marks a sandbox whose stage state is complete; a retried round may reuse it from there. */
const READY = '/work/.chainsmith/ready';
const SETUP_OUT = '/work/.chainsmith/setup.out';

/**
 * Builds a stage's starting state S_init(t) in the sandbox's repository: its base, the agent's carried
 * work (`carryPatch`, Δτ(t−1)) merged in, and this stage's earlier progress (already written to
 * PROGRESS_PATCH) on top. Returns what the carry did; a stage that cannot be built throws StageError.
 */
export async function setUpStage(
  sandbox: DockerContainer,
  chain: Chain,
  stage: number,
  opts: { carryPatch?: string | Buffer; progress: boolean; prepared?: boolean },
): Promise<Carry> {
  const carried = opts.carryPatch !== undefined && stage > 0;
  const script = carryScript(chain, stage, { carry: carried, progress: opts.progress, prepared: opts.prepared });
  // Shell builtins where they do: this runs before every stage, and each process costs milliseconds.
  // The carried patch comes in as the command's input: one round trip, not two.
  const write = carried ? `cat > ${CARRY_PATCH} && ` : '';
  const show = `while IFS= read -r l || [ -n "$l" ]; do printf '%s\\n' "$l"; done < ${SETUP_OUT}`;
  const setup = await sandbox.exec(
    `[ ! -e ${READY} ] || rm -f ${READY}; [ -d /work/.chainsmith ] || mkdir -p /work/.chainsmith; ${write}(\n${script}\n) > ${SETUP_OUT} 2>&1 && : > ${READY}; s=$?; ${show}; exit $s`,
    { timeoutSeconds: 600, maxOutputChars: 20_000, cwd: '/work' },
    carried ? Buffer.from(opts.carryPatch!) : undefined,
  );
  if (setup.exitCode !== 0) {
    const why = `stage ${stage + 1} (PR #${chain.prs[stage].number}) could not be set up (its base checked out, the earlier stages carried onto it)`;
    const reason = stageReason('invalid-inputs', why, {
      command: 'the stage setup script (checkout and carry)',
      exitCode: setup.exitCode,
      output: setup.output,
    });
    throw new StageError(
      `stage ${stage + 1} (PR #${chain.prs[stage].number}) could not be set up:\n${setup.output.trim()}`,
      { reason },
    );
  }
  return parseCarry(setup.output, chain, stage, carried);
}

/** Sets a new sandbox up for stage `stage` as far as it goes without the carry (setUpStage with `prepared` finishes it). */
export async function prepareStage(sandbox: DockerContainer, chain: Chain, stage: number): Promise<void> {
  const r = await sandbox.exec(`mkdir -p /work/.chainsmith && (\n${prepareScript(chain, stage)}\n)`, {
    timeoutSeconds: 600,
    maxOutputChars: 20_000,
    cwd: '/work',
  });
  if (r.exitCode !== 0) {
    const reason = stageReason(
      'invalid-inputs',
      `stage ${stage + 1} (PR #${chain.prs[stage].number}) could not be prepared`,
      { command: 'the stage prepare script (checkout)', exitCode: r.exitCode, output: r.output },
    );
    throw new StageError(
      `stage ${stage + 1} (PR #${chain.prs[stage].number}) could not be prepared:\n${r.output.trim()}`,
      { reason },
    );
  }
}

/** In a surviving sandbox: back to the stage's starting state plus the progress patch. Undefined if it never got ready. */
export async function resetStage(
  sandbox: DockerContainer,
  chain: Chain,
  stage: number,
  carried: boolean,
  progress: boolean,
): Promise<Carry | undefined> {
  const apply = progress ? ` && git apply --allow-empty --binary ${PROGRESS_PATCH}` : '';
  const r = await sandbox.exec(
    `test -f ${READY} && git reset -q --hard ${CARRY_TAG} && git clean -qfd${apply} && cat ${SETUP_OUT}`,
    {
      timeoutSeconds: 600,
      maxOutputChars: 20_000,
    },
  );
  if (r.exitCode !== 0) return undefined;
  return parseCarry(r.output, chain, stage, carried);
}
