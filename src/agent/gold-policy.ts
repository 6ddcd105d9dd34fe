import type { Message, PullRequest } from '../schemas';
import { toolCall, type Policy } from './policy';

const END = 'CHAINSMITH_GOLD_PATCH_END';

/**
 * Replays the real PR patch through the same tools a model would use: apply it, run the PR's tests,
 * submit. It proves a stage's environment works end to end without any model. Its samples are
 * labelled `gold-replay` and exported apart from model rollouts.
 */
export class GoldReplayPolicy implements Policy {
  readonly kind = 'gold-replay' as const;

  constructor(
    private readonly pr: PullRequest,
    /** The command that runs the PR's tests (the stage environment's runner). */
    private readonly testCommand: string,
  ) {}

  async next(messages: Message[]) {
    const lastUser = messages.map((m) => m.role).lastIndexOf('user');
    const step = messages.slice(lastUser + 1).filter((m) => m.role === 'assistant').length;
    const id = `gold-${this.pr.number}-${messages.length}`;
    const tests = this.pr.files.filter((f) => f.kind === 'test' && f.status !== 'deleted').map((f) => f.path);
    const calls = [
      toolCall(id, 'bash', { command: `git apply --3way --whitespace=nowarn - <<'${END}'\n${this.pr.patch}${END}` }),
      toolCall(id, 'bash', { command: tests.length ? this.testCommand : 'git status --short' }),
      toolCall(id, 'submit', { summary: `Applied the changes of PR #${this.pr.number}.` }),
    ];
    const call = calls[Math.min(step, calls.length - 1)];
    return {
      message: { role: 'assistant' as const, content: null, tool_calls: [call] },
      usage: { promptTokens: 0, completionTokens: 0 },
    };
  }
}
