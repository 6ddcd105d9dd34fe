import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readMarker, type Caller, type CallMarker } from '../../src/model/markers';
import { seededRandom } from './seeded-random';

export interface ChatRequest {
  model: string;
  messages: { role: string; content: string | null; tool_calls?: unknown[] }[];
  tools?: unknown[];
  response_format?: unknown;
}

export type Reply = { content: string } | { toolCalls: { name: string; args: Record<string, unknown> }[] };

/**
 * Decides each reply. `marker` is what the client said about the call in its headers (src/model/markers.ts):
 * the caller and, where it applies, the stage, round and step; scripts branch on it, never on prompt wording.
 */
export type Script = (req: ChatRequest, marker: CallMarker | undefined) => Reply;

export type Fault = 'rate_limit' | 'server_error' | 'timeout' | 'malformed_tool_call' | 'empty';

export interface FaultOptions {
  /** Added to every answer, in milliseconds (or per request, e.g. only to the agent's calls). */
  latencyMs?: number | ((req: ChatRequest, marker: CallMarker | undefined) => number);
  /** A request it returns a promise for is answered once that settles: a model call held in flight. */
  hold?: (req: ChatRequest, marker: CallMarker | undefined) => Promise<void> | undefined;
  /** Share of requests (0..1) answered with a fault instead of the script. */
  faultRate?: number;
  /** Which faults to inject, in turn (default: all). */
  faults?: Fault[];
  /** Deterministic fault draws. */
  seed?: number;
  /** How long a `timeout` fault holds the request before dropping it. */
  hangMs?: number;
  /** Keep each request's messages in `requests` (default true); off for runs whose conversations grow huge. */
  recordMessages?: boolean;
}

/**
 * A scripted OpenAI-compatible server on 127.0.0.1 speaking the real chat-completions protocol, so the
 * real `openai` client is what the code under test talks to. `script` decides each reply; faults
 * (429 with Retry-After, 5xx, hung requests, malformed tool-call JSON, empty replies) are injected at a
 * configurable rate for durability tests and benchmarks.
 */
export class FakeOpenAI {
  readonly requests: { body: ChatRequest; marker?: CallMarker; authorization?: string; fault?: Fault }[] = [];
  readonly faultCounts: Record<Fault, number> = {
    rate_limit: 0,
    server_error: 0,
    timeout: 0,
    malformed_tool_call: 0,
    empty: 0,
  };
  private server?: Server;
  private random: () => number;
  private faultsDrawn = 0;

  constructor(
    private readonly script: Script,
    private readonly options: FaultOptions = {},
  ) {
    this.random = seededRandom(options.seed ?? 1);
  }

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      let raw = '';
      req.on('data', (c) => (raw += c));
      req.on('end', () => void this.answer(req, res, raw));
    });
    this.server.keepAliveTimeout = 60_000;
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}/v1`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((resolve) => this.server?.close(resolve));
  }

  private async answer(req: IncomingMessage, res: ServerResponse, raw: string): Promise<void> {
    const json = (status: number, body: unknown, headers: Record<string, string> = {}): void => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
    };
    if (req.method === 'GET' && req.url?.endsWith('/models')) return json(200, { object: 'list', data: [] });
    if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions'))
      return json(404, { error: { message: 'not found' } });
    const body = JSON.parse(raw) as ChatRequest;
    const fault = this.drawFault();
    const marker = readMarker(req.headers);
    const recorded = this.options.recordMessages === false ? { ...body, messages: [] } : body;
    this.requests.push({ body: recorded, marker, authorization: req.headers.authorization, fault });
    const latency =
      typeof this.options.latencyMs === 'function' ? this.options.latencyMs(body, marker) : this.options.latencyMs;
    if (latency) await sleep(latency);
    await this.options.hold?.(body, marker);
    if (fault) this.faultCounts[fault] += 1;
    switch (fault) {
      case 'rate_limit':
        return json(429, { error: { message: 'rate limited', type: 'rate_limit_error' } }, { 'retry-after': '0' });
      case 'server_error':
        return json(503, { error: { message: 'overloaded', type: 'server_error' } });
      case 'timeout':
        await sleep(this.options.hangMs ?? 5_000);
        res.destroy();
        return;
      case 'empty':
        return json(200, completion(body, { content: '' }, this.requests.length));
      case 'malformed_tool_call': {
        const reply = completion(body, { toolCalls: [{ name: 'bash', args: {} }] }, this.requests.length);
        reply.choices[0].message.tool_calls![0].function.arguments = '{"command": "ls';
        return json(200, reply);
      }
    }
    let reply: Reply;
    try {
      reply = this.script(body, marker);
    } catch (err) {
      return json(500, { error: { message: `script failed: ${String(err)}` } });
    }
    json(200, completion(body, reply, this.requests.length));
  }

  /** The requests one caller made (by their markers), in order. */
  requestsBy(caller: Caller): ChatRequest[] {
    return this.requests.filter((r) => r.marker?.caller === caller).map((r) => r.body);
  }

  private drawFault(): Fault | undefined {
    const rate = this.options.faultRate ?? 0;
    if (rate <= 0 || this.random() >= rate) return undefined;
    // Kinds take turns, so every kind shows up once a handful of faults have been drawn.
    const faults = this.options.faults ?? (Object.keys(this.faultCounts) as Fault[]);
    return faults[this.faultsDrawn++ % faults.length];
  }
}

function completion(body: ChatRequest, reply: Reply, n: number) {
  const message: {
    role: 'assistant';
    content: string | null;
    tool_calls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[];
  } =
    'content' in reply
      ? { role: 'assistant', content: reply.content }
      : {
          role: 'assistant',
          content: null,
          tool_calls: reply.toolCalls.map((c, i) => ({
            id: `call_${n}_${i}`,
            type: 'function' as const,
            function: { name: c.name, arguments: JSON.stringify(c.args) },
          })),
        };
  const promptTokens = JSON.stringify(body.messages).length >> 2;
  return {
    id: `chatcmpl-${n}`,
    object: 'chat.completion',
    created: 1_700_000_000,
    model: body.model,
    choices: [{ index: 0, message, finish_reason: 'content' in reply ? 'stop' : 'tool_calls', logprobs: null }],
    usage: { prompt_tokens: promptTokens, completion_tokens: 20, total_tokens: promptTokens + 20 },
  };
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
