import { z } from 'zod';
import type { Usage } from '../schemas';

/** US dollars per million tokens. Cached prompt tokens are billed at their own rate where a provider discounts them. */
export const PriceSchema = z.strictObject({
  inputPerMillion: z.number().nonnegative(),
  cachedInputPerMillion: z.number().nonnegative().optional(),
  outputPerMillion: z.number().nonnegative(),
});
export type Price = z.infer<typeof PriceSchema>;

/**
 * List prices at the time of writing; they change, so a deployment should set its own table in
 * `budget.prices`. A model missing from the table has no known cost (see costOf).
 */
export const DEFAULT_PRICES: Record<string, Price> = {
  'gpt-4o-mini': { inputPerMillion: 0.15, cachedInputPerMillion: 0.075, outputPerMillion: 0.6 },
  'gpt-4o': { inputPerMillion: 2.5, cachedInputPerMillion: 1.25, outputPerMillion: 10 },
  'gpt-4.1': { inputPerMillion: 2, cachedInputPerMillion: 0.5, outputPerMillion: 8 },
  'gpt-4.1-mini': { inputPerMillion: 0.4, cachedInputPerMillion: 0.1, outputPerMillion: 1.6 },
};

/** The cost of one model call, or undefined when the model has no price. */
export function costOf(usage: Usage, price: Price | undefined): number | undefined {
  if (!price) return undefined;
  const cached = Math.min(usage.cachedPromptTokens ?? 0, usage.promptTokens);
  const fresh = usage.promptTokens - cached;
  const cachedRate = price.cachedInputPerMillion ?? price.inputPerMillion;
  return (fresh * price.inputPerMillion + cached * cachedRate + usage.completionTokens * price.outputPerMillion) / 1e6;
}
