import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ChatRequest {
  model: string;
  messages: { role: string; content: string | null; tool_calls?: unknown[] }[];
  tools?: unknown[];
  response_format?: unknown;
}

export type Reply =
  | { content: string }
  | { toolCalls: { name: string; args: Record<string, unknown> }[] };

/**
 * A scripted OpenAI-compatible server on 127.0.0.1 speaking the real chat-completions protocol, so the
 * real `openai` client is what the code under test talks to. `script` decides each reply.
 */
export class FakeOpenAI {
  readonly requests: { body: ChatRequest; authorization?: string }[] = [];
  private server?: Server;

  constructor(private readonly script: (req: ChatRequest) => Reply) {}

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      let raw = '';
      req.on('data', (c) => (raw += c));
      req.on('end', () => {
        if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
          res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'not found' } }));
          return;
        }
        const body = JSON.parse(raw) as ChatRequest;
        this.requests.push({ body, authorization: req.headers.authorization });
        let reply: Reply;
        try {
          reply = this.script(body);
        } catch (err) {
          res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: String(err) } }));
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(completion(body, reply, this.requests.length)));
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}/v1`;
  }

  async stop(): Promise<void> {
    await new Promise((resolve) => this.server?.close(resolve));
  }
}

function completion(body: ChatRequest, reply: Reply, n: number) {
  const message =
    'content' in reply
      ? { role: 'assistant', content: reply.content }
      : {
          role: 'assistant',
          content: null,
          tool_calls: reply.toolCalls.map((c, i) => ({
            id: `call_${n}_${i}`,
            type: 'function',
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
