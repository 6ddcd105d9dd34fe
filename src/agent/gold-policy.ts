import { Buffer } from 'node:buffer';
import type { Message, PullRequest } from '../schemas';
import type { Policy, Turn } from './policy';

const END = 'CHAINSMITH_GOLD_PATCH_END';

/**
 * Replays the real PR patch through the same actions a model would take, in the chain's scaffold:
 * apply it, run the PR's tests, submit. It proves a stage's environment works end to end without any
 * model. Its samples are labelled `gold-replay` and exported apart from model rollouts.
 */
export class GoldReplayPolicy implements Policy {
  readonly kind = 'gold-replay' as const;

  constructor(
    private readonly pr: PullRequest,
    /** The command that runs the PR's tests (the stage environment's runner); undefined where it has none. */
    private readonly testCommand: string | undefined,
  ) {}

  async next(messages: Message[], { step, scaffold }: Turn) {
    const actions = [
      { run: applyCommand(this.pr.patch), why: `Apply the changes of PR #${this.pr.number}.` },
      { run: this.testCommand ?? 'git status --short', why: "Run the PR's tests." },
      { submit: `Applied the changes of PR #${this.pr.number}.` },
    ];
    const message = scaffold.reply(
      actions[Math.min(step, actions.length - 1)],
      `gold-${this.pr.number}-${messages.length}`,
    );
    return { message, usage: { promptTokens: 0, completionTokens: 0 } };
  }
}

/**
 * The patch through a heredoc. A patch with a line of three backticks (a Markdown file's code fence)
 * would end a ```bash block early, so such a patch goes base64-encoded instead.
 */
function applyCommand(patch: string): string {
  const apply = 'git apply --3way --whitespace=nowarn -';
  if (!/^\S?\s*```/m.test(patch)) return `${apply} <<'${END}'\n${patch}${END}`;
  const encoded = Buffer.from(patch).toString('base64').replace(/.{76}/g, '$&\n');
  return `base64 -d <<'${END}' | ${apply}\n${encoded}\n${END}`;
}
