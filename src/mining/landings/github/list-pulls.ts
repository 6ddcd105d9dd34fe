import { z } from 'zod';
import type { GitHubContext } from './context';
import { parsePayload, PullListPage, type PullListItem } from './payloads';
import { explainRequestError, statusOf } from './request-errors';

const ListPage = z.object({
  version: z.literal(1),
  fetchedAt: z.number(),
  etag: z.string().nullable(),
  nextPage: z.number().int().positive().nullable(),
  lastPage: z.number().int().positive().nullable(),
  items: PullListPage,
});
type ListPage = z.infer<typeof ListPage>;

/** The page numbers behind rel="next" and rel="last" of a Link header. */
function linkPages(header: string | undefined): { next: number | null; last: number | null } {
  const pages: Record<string, number> = {};
  for (const part of (header ?? '').split(',')) {
    const match = /<([^>]+)>\s*;\s*rel="(\w+)"/.exec(part);
    const page = match ? new URL(match[1]).searchParams.get('page') : null;
    if (match && page) pages[match[2]] = Number(page);
  }
  return { next: pages.next ?? null, last: pages.last ?? null };
}

interface ListOptions {
  /** How long a cached page is trusted without asking GitHub. */
  ttlMs: number;
  /** Ask GitHub about every cached page (conditionally: unchanged pages cost no rate limit). */
  refresh?: boolean;
}

/**
 * Every PR of the repository, open or closed, oldest first, 100 a page. Pages come from the cache
 * while fresh; older ones are revalidated with their ETag, and a 304 reuses the cached page.
 * Oldest first keeps a page's members stable: new PRs only ever land on the last page.
 */
export async function listPulls(ctx: GitHubContext, opts: ListOptions): Promise<PullListItem[]> {
  const all: PullListItem[] = [];
  for (let page: number | null = 1; page !== null; ) {
    const key = `pulls/page-${page}`;
    const cached = await ctx.cache.read(key, ListPage);
    const fresh = cached && !opts.refresh && ctx.now() - cached.fetchedAt < opts.ttlMs;
    const entry: ListPage = fresh ? ctx.cache.hit(cached) : await fetchPage(ctx, page, cached);
    if (!fresh) await ctx.cache.write(key, entry);
    all.push(...entry.items);
    ctx.onProgress?.({ phase: 'listing PRs', done: page, total: Math.max(page, entry.lastPage ?? page) });
    page = entry.nextPage;
  }
  return all;
}

async function fetchPage(ctx: GitHubContext, page: number, cached: ListPage | undefined): Promise<ListPage> {
  const what = `GET /repos/${ctx.owner}/${ctx.name}/pulls page ${page}`;
  try {
    const response = await ctx.client.request('GET /repos/{owner}/{repo}/pulls', {
      owner: ctx.owner,
      repo: ctx.name,
      state: 'all',
      sort: 'created',
      direction: 'asc',
      per_page: 100,
      page,
      headers: cached?.etag ? { 'if-none-match': cached.etag } : {},
    });
    const links = linkPages(response.headers.link);
    return {
      version: 1,
      fetchedAt: ctx.now(),
      etag: response.headers.etag ?? null,
      nextPage: links.next,
      lastPage: links.last,
      items: parsePayload(PullListPage, response.data, what),
    };
  } catch (error) {
    // Octokit reports 304 Not Modified as an error; for us it means the cached page still holds.
    if (cached && statusOf(error) === 304) return { ...ctx.cache.hit(cached), fetchedAt: ctx.now() };
    throw explainRequestError(error, ctx, what);
  }
}
