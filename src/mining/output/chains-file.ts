import { readFile } from 'node:fs/promises';
import { writeAtomic } from '../../atomic-file';
import { InputError } from '../../errors';
import { ChainSchema, type Chain } from '../../schemas';

export async function readChains(path: string): Promise<Chain[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (cause) {
    throw new InputError(`cannot read chains file ${path}: ${(cause as Error).message}`, { cause });
  }
  const chains = text
    .split('\n')
    .map((line, i) => ({ line, n: i + 1 }))
    .filter(({ line }) => line.trim())
    .map(({ line, n }) => {
      let json: unknown;
      try {
        json = JSON.parse(line);
      } catch {
        throw new InputError(`${path}:${n}: not valid JSON`);
      }
      const parsed = ChainSchema.safeParse(json);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        throw new InputError(`${path}:${n}: not a chain: ${issue.path.join('.')}: ${issue.message}`);
      }
      return parsed.data;
    });
  if (!chains.length) throw new InputError(`${path} holds no chains`);
  return chains;
}

/** Written whole or not at all. */
export async function writeChains(path: string, chains: Chain[]): Promise<void> {
  await writeAtomic(path, chains.map((c) => JSON.stringify(c)).join('\n') + (chains.length ? '\n' : ''));
}
