import OpenAI from 'openai';
import type { z } from 'zod';
import { NO_REDACTION, type Redactor } from '../redact';
import { classifyModelFailure } from './errors';
import { jsonFormat } from './json-reply';
import { markerHeaders, type CallMarker } from './markers';
import { withRetries, type RetryPolicy } from './retry';
import { journaled } from '../work-journal';

export type ChatMessage = OpenAI.Chat.Completions.ChatCompletionMessageParam;
export type ChatRequest = OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming;

export interface ModelClientOptions {
  baseUrl: string;
  apiKey?: string;
  /** One request's time limit (config model.timeoutMs). */
  timeoutMs?: number;
  retry: RetryPolicy;
  /** Removes the worker's secrets from every error text of this client's calls (they reach workflow history). */
  redactor?: Redactor;
}

const WHO: Record<CallMarker['caller'], string> = {
  agent: 'the model',
  judge: 'the judge',
  'query-writer': 'the query writer',
  'link-judge': 'the link judge',
  'setup-agent': 'the setup agent',
};

/**
 * The one way chainsmith talks to an OpenAI-compatible endpoint, for the agent, the judge, the query
 * writer and the miner's link judge: every call carries its marker (markers.ts), is retried by the one retry policy
 * (retry.ts; the SDK itself never retries) and fails with the error tree of errors.ts, its text free
 * of the API key. The key stays in this object: it is never part of an error, a marker or a prompt.
 */
export class ModelClient {
  private readonly openai: OpenAI;
  readonly retry: RetryPolicy;
  private readonly redactor: Redactor;

  constructor(opts: ModelClientOptions) {
    this.redactor = opts.redactor ?? NO_REDACTION;
    this.openai = new OpenAI({
      baseURL: opts.baseUrl,
      apiKey: opts.apiKey ?? 'unset',
      maxRetries: 0,
      timeout: opts.timeoutMs ?? 120_000,
    });
    this.retry = opts.retry;
  }

  get baseUrl(): string {
    return this.openai.baseURL;
  }

  /**
   * One chat completion. `signal` stops the call and its retries; `redactor` removes the worker's other
   * secrets from error texts (they end up in workflow history).
   */
  async complete(
    request: ChatRequest,
    call: { marker: CallMarker; signal?: AbortSignal; redactor?: Redactor },
  ): Promise<OpenAI.Chat.Completions.ChatCompletion> {
    // The same request asked again (a retried activity) is work redone: the durability bench counts it.
    return journaled(
      'model',
      () => JSON.stringify([call.marker.caller, request.model, request.messages]),
      () => withRetries(() => this.once(request, call), this.retry, call.signal),
    );
  }

  /**
   * A reply asked for as JSON matching `format.schema`, as raw text: the caller validates it and decides
   * whether to ask again. `signal` (an activity's cancellation) stops the call and its retries.
   */
  async completeJson(
    model: string,
    messages: ChatMessage[],
    format: { name: string; schema: z.ZodType },
    marker: CallMarker,
    signal?: AbortSignal,
  ): Promise<string> {
    const response = await this.complete({ model, messages, response_format: jsonFormat(format) }, { marker, signal });
    return response.choices?.[0]?.message?.content ?? '';
  }

  private async once(request: ChatRequest, call: { marker: CallMarker; signal?: AbortSignal; redactor?: Redactor }) {
    // One controller per request, linked to the caller's signal and unlinked after: passing a
    // long-lived signal itself would gather one listener per call.
    const controller = new AbortController();
    const abort = () => controller.abort();
    if (call.signal?.aborted) controller.abort();
    else call.signal?.addEventListener('abort', abort, { once: true });
    const started = Date.now();
    try {
      return await this.openai.chat.completions.create(request, {
        signal: controller.signal,
        headers: markerHeaders(call.marker),
      });
    } catch (cause) {
      throw classifyModelFailure(this.openai, WHO[call.marker.caller], cause, {
        elapsedMs: Date.now() - started,
        redactor: call.redactor ?? this.redactor,
      });
    } finally {
      call.signal?.removeEventListener('abort', abort);
    }
  }
}
