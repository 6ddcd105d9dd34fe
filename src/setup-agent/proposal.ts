import { z } from 'zod';
import { RecipeOverrideSchema, resolveProblem, type RecipeOverride } from '../environments/recipe';

const override = RecipeOverrideSchema.shape;

/**
 * A recipe as the setup agent proposes it: the configured-recipe schema (environments.repos) with every
 * field the agent must decide required, so that strict structured output can ask for it. Environment
 * variables and PATH entries are left to a user's edit of the saved file. A `resolve` list its language
 * cannot fetch is a malformed reply, pointed out to the model like any other.
 */
export const ProposalSchema = z
  .object({
    toolchain: override.toolchain.unwrap(),
    language: override.language.unwrap(),
    manifests: z.array(z.string().min(1)),
    resolve: z.array(z.string().min(1)),
    setup: z.array(z.string().min(1)),
    test: z.string().trim().min(1),
    runner: override.runner.unwrap(),
  })
  .superRefine((p, ctx) => {
    const problem = resolveProblem(p);
    if (problem) ctx.addIssue({ code: 'custom', path: ['resolve'], message: problem });
  });
export type Proposal = z.infer<typeof ProposalSchema>;

/** The proposal as a configured recipe: what the builder takes and what the recipes file keeps. */
export function toOverride(p: Proposal): RecipeOverride {
  return RecipeOverrideSchema.parse({
    ...p,
    manifests: p.manifests.length ? p.manifests : undefined,
    resolve: p.resolve.length ? p.resolve : undefined,
  });
}
