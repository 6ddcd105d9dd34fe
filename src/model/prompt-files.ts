import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../paths';

/** Whose prompts: one folder each under src/model/prompts/. */
export type PromptFolder = 'agent' | 'judge' | 'queries' | 'link-judge' | 'setup-agent';

const cache = new Map<string, string>();

/**
 * A prompt template, read from src/model/prompts/<folder>/<name>.md under the package root so that ts-jest,
 * the compiled dist/ and the worker image (which keeps src/) all find the same file. Leading
 * <!-- comments --> document the placeholders and are not part of the prompt.
 */
export function promptTemplate(folder: PromptFolder, name: string): string {
  const path = join(packageRoot(), 'src', 'model', 'prompts', folder, `${name}.md`);
  let text = cache.get(path);
  if (text === undefined) {
    text = readFileSync(path, 'utf8')
      .replace(/^\s*<!--[\s\S]*?-->\s*/, '')
      .trimEnd();
    cache.set(path, text);
  }
  return text;
}

/** Fills {{name}} placeholders in one pass (values are not scanned again); a missing value is a bug. */
export function fillTemplate(template: string, values: Record<string, string | number>): string {
  return template.replace(/\{\{(\w+)\}\}/g, (_match, key: string) => {
    if (!(key in values)) throw new Error(`prompt template needs a value for {{${key}}}`);
    return String(values[key]);
  });
}

export function prompt(folder: PromptFolder, name: string, values: Record<string, string | number> = {}): string {
  return fillTemplate(promptTemplate(folder, name), values);
}
