import type { ChatMessage, ModelClient } from '../model/client';
import { MalformedReplyError } from '../model/errors';
import { fillTemplate, promptTemplate } from '../model/prompt-files';
import { addUsage } from '../mining/links/link-judge/ask-model';
import { NO_REDACTION, type Redactor } from '../redact';
import { SETUP_AGENT_STEPS } from '../retry-budget';
import type { Usage } from '../schemas';
import { ProposalSchema, type Proposal } from './proposal';
import { SETUP_TOOL_SPECS, type RepoReader } from './read-tools';

/** Replies that fit nothing (no tool call, a proposal that does not parse) before the agent gives up on a recipe: the model layer's three. */
const MALFORMED = 3;

/** The agent produced no usable recipe (replies that did not fit, or reading without end). */
export class NoRecipeError extends MalformedReplyError {}

export interface ConversationOptions {
  client: ModelClient;
  model: string;
  reader: RepoReader;
  /** Takes secrets and token-shaped text out of what the repository and the build print before it is sent. */
  redactor?: Redactor;
  signal?: AbortSignal;
  /** The stage, for the call markers (0-based). */
  stage: number;
  /** Called after every model reply has been answered (a checkpoint: `state` is what a retry resumes from). */
  onStep?: () => Promise<void>;
}

/** What a conversation is at a point between two model calls: enough to go on from there in another process. */
export interface ConversationState {
  messages: ChatMessage[];
  usage: Usage;
  requests: number;
  /** Model calls of the recipe under way so far, and its replies that fit nothing. */
  step: number;
  problems: string[];
  pending?: string;
  /** Proposed and not yet answered by a build. */
  proposal?: Proposal;
}

/**
 * The setup agent's one conversation for a stage: one growing message list across its attempts, so a
 * second recipe is written knowing why the first failed. `propose` runs the model until it calls
 * propose_recipe, answering its read tools from the container; a reply that fits nothing is pointed
 * out and asked again, MALFORMED times at most.
 */
export class Conversation {
  readonly messages: ChatMessage[];
  usage: Usage = { promptTokens: 0, completionTokens: 0 };
  requests = 0;
  /** The propose_recipe call awaiting its result (the build's): answered by the next attempt's feedback. */
  private pending?: string;
  private proposal?: Proposal;
  private step = 0;
  private problems: string[] = [];
  private readonly redactor: Redactor;

  /** `first` the repository prompt of a new conversation, or the state an earlier process left (resumed as it was). */
  constructor(
    private readonly opts: ConversationOptions,
    first: string | ConversationState,
  ) {
    this.redactor = opts.redactor ?? NO_REDACTION;
    if (typeof first !== 'string') {
      this.messages = first.messages;
      this.usage = first.usage;
      this.requests = first.requests;
      this.step = first.step;
      this.problems = first.problems;
      this.pending = first.pending;
      this.proposal = first.proposal;
      return;
    }
    this.messages = [
      { role: 'system', content: promptTemplate('setup-agent', 'system') },
      { role: 'user', content: this.redactor.text(first) },
    ];
  }

  get state(): ConversationState {
    return {
      messages: this.messages,
      usage: this.usage,
      requests: this.requests,
      step: this.step,
      problems: this.problems,
      ...(this.pending ? { pending: this.pending } : {}),
      ...(this.proposal ? { proposal: this.proposal } : {}),
    };
  }

  /** Why the last proposal failed, as the answer to its call; the next recipe starts afresh. */
  feedback(text: string): void {
    const content = this.redactor.text(text);
    if (this.pending) this.messages.push({ role: 'tool', tool_call_id: this.pending, content });
    else this.messages.push({ role: 'user', content });
    this.pending = undefined;
    this.proposal = undefined;
    this.step = 0;
    this.problems = [];
  }

  /**
   * The next recipe: the one proposed and not yet answered where a resumed conversation has one, else
   * the model's. `attempt` is 0-based (the call markers' round). Throws the model layer's errors, or
   * NoRecipeError.
   */
  async propose(attempt: number): Promise<Proposal> {
    if (this.proposal) return this.proposal;
    const problems = this.problems;
    for (; this.step < SETUP_AGENT_STEPS; ) {
      const step = this.step;
      const response = await this.opts.client.complete(
        { model: this.opts.model, messages: this.messages, tools: SETUP_TOOL_SPECS, tool_choice: 'required' },
        {
          marker: { caller: 'setup-agent', stage: this.opts.stage, round: attempt, step },
          signal: this.opts.signal,
          redactor: this.redactor,
        },
      );
      this.requests += 1;
      this.usage = addUsage(this.usage, {
        promptTokens: response.usage?.prompt_tokens ?? 0,
        completionTokens: response.usage?.completion_tokens ?? 0,
      });
      const message = response.choices?.[0]?.message;
      const calls = (message?.tool_calls ?? []).filter((c) => c.type === 'function');
      this.messages.push({
        role: 'assistant',
        content: message?.content ?? null,
        ...(calls.length ? { tool_calls: calls } : {}),
      });
      this.step += 1;
      if (!calls.length) {
        this.malformed(problems, 'it calls no tool', attempt);
        await this.opts.onStep?.();
        if (problems.length >= MALFORMED) break;
        continue;
      }
      let proposal: Proposal | undefined;
      for (const call of calls) {
        let args: unknown;
        try {
          args = JSON.parse(call.function.arguments || '{}');
        } catch {
          this.answer(
            call.id,
            `the arguments are not valid JSON (${JSON.stringify(call.function.arguments.slice(0, 120))})`,
          );
          problems.push(`${call.function.name}: arguments not JSON`);
          continue;
        }
        if (call.function.name !== 'propose_recipe') {
          this.answer(call.id, await this.opts.reader.call(call.function.name, args));
          continue;
        }
        const parsed = ProposalSchema.safeParse(args);
        if (parsed.success && !proposal) {
          proposal = parsed.data;
          this.pending = call.id;
        } else if (parsed.success) {
          this.answer(call.id, 'only the first proposal of a reply is built');
        } else {
          const problem = `the recipe does not match the schema (${parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')})`;
          this.answer(call.id, fillTemplate(promptTemplate('setup-agent', 'malformed'), { problem }));
          problems.push(problem);
        }
      }
      this.proposal = proposal;
      await this.opts.onStep?.();
      if (proposal) return proposal;
      if (problems.length >= MALFORMED) break;
    }
    throw new NoRecipeError(
      problems.length >= MALFORMED
        ? `the setup agent gave no usable recipe in ${MALFORMED} replies (${problems.slice(0, MALFORMED).join('; ')})`
        : `the setup agent proposed no recipe in ${SETUP_AGENT_STEPS} model calls`,
    );
  }

  private answer(id: string, content: string): void {
    this.messages.push({ role: 'tool', tool_call_id: id, content: this.redactor.text(content) });
  }

  private malformed(problems: string[], problem: string, attempt: number): void {
    problems.push(problem);
    this.messages.push({
      role: 'user',
      content: fillTemplate(promptTemplate('setup-agent', 'malformed'), {
        problem: `${problem} (recipe ${attempt + 1})`,
      }),
    });
  }
}
