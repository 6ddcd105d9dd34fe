// no-docker: needs no Docker engine (jest.config.js)
import { resolverFailure } from '../../../../src/environments/languages/python/resolver-failure';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FetchContext, Resolution } from '../../../../src/environments/contract';
import type { Recipe } from '../../../../src/environments/languages';
import { DependencyCache } from '../../../../src/environments/dependencies';
import { runTool } from '../../../../src/environments/host-tools';
import { StageError, TransientError, UnexplainedFailure } from '../../../../src/errors';
import { ChainRepo } from '../../../support/chain-repo';

const failed = (stderr: string) =>
  resolverFailure('uv pip compile', 'uv pip compile requirements.txt', { code: 1, stdout: '', stderr });

describe('resolverFailure', () => {
  it('retries only a registry that did not answer', () => {
    expect(failed('error: Failed to fetch: HTTP status: 503 Service Unavailable')).toBeInstanceOf(TransientError);
    expect(failed('error: request failed: status code 429 Too Many Requests')).toBeInstanceOf(TransientError);
    expect(failed('Caused by: tcp connect error: Connection refused (os error 111)')).toBeInstanceOf(TransientError);
  });

  it('does not take a version number for a server error', () => {
    const error = failed(
      '  × Because foo==1.503 depends on bar>=2.502 and bar is unavailable, foo==1.503 cannot be used.',
    );
    expect(error).toBeInstanceOf(StageError);
    expect((error as StageError).reason?.kind).toBe('dependencies-unresolvable');
  });

  it('names an unparseable requirement, a version-control URL and a Python 2 build for what they are, permanently', () => {
    const parse = failed(
      "error: Couldn't parse requirement in `requirements.txt` at position 0\n  Caused by: Expected package name",
    );
    expect(parse).toBeInstanceOf(StageError);
    expect((parse as StageError).reason).toMatchObject({
      kind: 'dependencies-unresolvable',
      summary: 'uv pip compile: a requirement line does not parse',
    });
    const scheme = failed('error: Unsupported URL prefix `git://` in URL: `git://github.com/x/y.git#egg=y`');
    expect((scheme as StageError).reason?.kind).toBe('unsupported');
    const advice = failed(
      "error: The build backend returned an error\n  [stderr]\n  LookupError: setuptools-scm was unable to detect version for '/tmp/src'.\n" +
        '  For example, if you are using pip, instead of https://github.com/user/proj/archive/master.zip use git+https://github.com/user/proj.git#egg=proj',
    );
    expect((advice as StageError).reason?.kind).toBe('dependencies-unresolvable');
    const python2 = failed(
      'error: The build backend returned an error\n  [stderr]\n  error in acme setup command: use_2to3 is invalid.',
    );
    expect(python2).toBeInstanceOf(StageError);
    expect((python2 as StageError).reason?.summary).toMatch(
      /^uv pip compile: the project's setup.py converts its Python 2 code/,
    );
    expect((python2 as StageError).reason?.kind).toBe('unsupported');
  });
});

describe('an unexplained resolver failure', () => {
  it('is retryable where the output shows no deterministic cause, and permanent where it does', () => {
    const unknown = failed('error: the resolver panicked: thread main overflowed its stack');
    expect(unknown).toBeInstanceOf(UnexplainedFailure);
    expect(unknown.permanent).toBe(false);
    expect((unknown as UnexplainedFailure).reason).toMatchObject({
      kind: 'dependencies-unresolvable',
      command: 'uv pip compile requirements.txt',
      exitCode: 1,
    });
    for (const cause of [
      '  × No solution found when resolving dependencies:',
      'ERROR: No matching distribution found for nosuchpkg',
      'error: Failed to build `cffi==1.0`',
      'error: The build backend returned an error\n  Caused by: Call to `setuptools.build_meta:__legacy__.get_requires_for_build_wheel` failed (exit status: 1)',
    ]) {
      expect(failed(cause)).toBeInstanceOf(StageError);
    }
  });

  it("is fetched once more by the dependency cache, and a second one is the stage's permanent reason", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chainsmith-unexplained-'));
    const repo = await ChainRepo.create(join(dir, 'repo'), { 'requirements.txt': 'idna\n' });
    const sha = await repo.head();
    // A recipe whose fetch runs a real failing command each time, and fails without a known cause the first `failures` times.
    const recipe = (failures: number) => {
      let calls = 0;
      const fetch = async (ctx: FetchContext): Promise<Resolution> => {
        calls += 1;
        const run = await runTool('bash', ['-c', 'echo "resolver: unexpected state 0x2a" >&2; exit 3'], {
          cwd: ctx.srcDir,
        });
        if (calls <= failures) throw resolverFailure('the resolver', 'resolver requirements.txt', run);
        return {
          ecosystem: 'pypi',
          tool: 'test',
          lock: 'resolved',
          packages: [{ name: 'idna', version: '3.6' }],
          notes: [],
        };
      };
      return {
        recipe: {
          language: 'python',
          origin: 'python-plain',
          toolchain: { image: 'python' },
          manifests: ['requirements.txt'],
          fetch,
          setup: [],
          env: {},
          path: [],
          runner: 'pytest',
        } as Recipe,
        calls: () => calls,
      };
    };
    const request = (r: Recipe, key: string) => ({
      repoName: 'x/y',
      repoPath: repo.path,
      sha,
      recipe: r,
      key,
      asOf: new Date(),
      log: () => undefined,
    });
    const cache = new DependencyCache(join(dir, 'data'));
    const once = recipe(1);
    expect((await cache.get(request(once.recipe, 'once'))).resolution.packages).toEqual([
      { name: 'idna', version: '3.6' },
    ]);
    expect(once.calls()).toBe(2);
    const twice = recipe(2);
    const err = await cache.get(request(twice.recipe, 'twice')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StageError);
    expect((err as StageError).reason).toMatchObject({
      kind: 'dependencies-unresolvable',
      summary: expect.stringMatching(/failed twice, with no known cause/),
      exitCode: 3,
      tail: expect.stringContaining('unexpected state 0x2a'),
    });
    expect(twice.calls()).toBe(2);
  });
});
