import type { Message } from './schemas';

export const REDACTED = '[REDACTED]';

/** Names of environment variables whose values are secrets. */
const SECRET_NAME = /(API_?KEY|ACCESS_?KEY|SECRET|TOKEN|PASSWORD|PASSWD|CREDENTIAL|_PAT$)/i;
/** Secrets shorter than this are too likely to match ordinary text. */
const MIN_SECRET = 8;

/** Well-known key and token formats: OpenAI-style keys, GitHub tokens, AWS key ids, Slack tokens, private keys, bearer headers. */
const TOKEN_PATTERNS = [
  /\bsk-[A-Za-z0-9_-]{16,}/g,
  /\bgh[pousr]_[A-Za-z0-9]{30,}/g,
  /\bgithub_pat_[A-Za-z0-9_]{30,}/g,
  /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g,
  /\bxox[abprs]-[A-Za-z0-9-]{10,}/g,
  /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----/g,
  /\bBearer\s+[A-Za-z0-9._~+/-]{16,}=*/g,
];

/**
 * Keeps API keys and tokens out of containers, prompts and saved trajectories. The worker's own
 * secrets (its config's API key, secret-looking environment variables) are known by value and removed
 * before a tool call runs, so they never reach a container; text that only looks like a token (a
 * repository's fixture, say) is removed from what is saved and shown to the model.
 */
export class Redactor {
  private readonly secrets: string[];

  constructor(secrets: (string | undefined)[]) {
    // Longest first, so a secret that contains another is removed whole.
    this.secrets = [...new Set(secrets.filter((s): s is string => !!s && s.length >= MIN_SECRET))].sort(
      (a, b) => b.length - a.length,
    );
  }

  /** The worker's secrets: `extra` (e.g. the configured API key) and secret-named variables of `env`. */
  static forWorker(env: Record<string, string | undefined>, extra: (string | undefined)[] = []): Redactor {
    const fromEnv = Object.entries(env)
      .filter(([name]) => SECRET_NAME.test(name))
      .map(([, value]) => value);
    return new Redactor([...extra, ...fromEnv]);
  }

  /** Only the known secrets: for text that is about to run. */
  secretsIn(text: string): string {
    let out = text;
    for (const secret of this.secrets) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
    return out;
  }

  /** Known secrets and anything shaped like a key or token: for text that is saved or shown. */
  text(text: string): string {
    let out = this.secretsIn(text);
    for (const pattern of TOKEN_PATTERNS) out = out.replace(pattern, REDACTED);
    return out;
  }

  message<M extends Message>(m: M): M {
    const copy: Message = { ...m, content: m.content === null ? null : this.text(m.content) } as Message;
    if (copy.role === 'assistant' && copy.tool_calls) {
      copy.tool_calls = copy.tool_calls.map((c) => ({
        ...c,
        function: { ...c.function, arguments: this.text(c.function.arguments) },
      }));
    }
    return copy as M;
  }
}

/** Redacts nothing: for callers that have no secrets to protect. */
export const NO_REDACTION = new Redactor([]);
