import { ChainQueriesSchema, type Chain, type ChainQueries, type PullRequest } from '../schemas';
import { addedIdentifiers } from './code-words';
import { intentOnly, type IntentContext } from './intent-text';

function firstParagraph(body: string): string {
  const paragraph = body.split(/\n\s*\n/).find((part) => part.trim() !== '') ?? '';
  return paragraph.replace(/\s*\n\s*/g, ' ').trim();
}

function sentence(text: string): string {
  // A trailing "…" is a withheld name, not an ellipsis, so the sentence still needs its stop.
  return text === '' || /[.!?]$/.test(text) ? text : `${text}.`;
}

/** Top-level directories of the code a PR changed (tests or any file when it changed no code). */
function places(pr: PullRequest): string {
  const code = pr.files.filter((file) => file.kind === 'code');
  const tests = pr.files.filter((file) => file.kind === 'test');
  const files = code.length > 0 ? code : tests.length > 0 ? tests : pr.files;
  const tops = new Set(
    files.map((file) => (file.path.includes('/') ? `${file.path.split('/')[0]}/` : 'the repository root')),
  );
  return [...tops].sort().join(', ');
}

/**
 * Queries built from the PRs' own words without a model: title and first paragraph of the
 * description with code and PR numbers withheld, plus where the change belongs. A fallback for the
 * model-written queries, and a baseline to compare them with.
 */
export function templateQueries(chain: Chain): ChainQueries {
  const identifiers = new Set(chain.prs.flatMap((pr) => [...addedIdentifiers(pr.patch)]));
  const stageOf = new Map(chain.prs.map((pr, index) => [pr.number, index + 1]));
  const context = (stage: number): IntentContext => ({ identifiers, stageOf, stage });

  const stages = chain.prs.map((pr, index) => {
    const title = sentence(intentOnly(pr.title, context(index + 1)));
    const detail = sentence(intentOnly(firstParagraph(pr.body), context(index + 1)));
    const where = `The change belongs in: ${places(pr)}.`;
    return { prNumber: pr.number, text: [title, detail, where].filter((part) => part !== '').join(' ') };
  });
  const goal = sentence(intentOnly(chain.prs[0].title, context(1)));
  const overview =
    `Repository ${chain.repo.name}: ${chain.prs.length} stages, each building on the ones before. ` +
    `Overall goal: ${goal}`;
  return ChainQueriesSchema.parse({ overview, stages, generator: 'template' });
}
