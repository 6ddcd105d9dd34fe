// no-docker: needs no Docker engine (jest.config.js)
import { resolverFailure } from '../../src/environments/languages/python/resolver-failure';
import { StageError, TransientError } from '../../src/errors';

const failed = (stderr: string) => resolverFailure('uv pip compile', 'uv pip compile requirements.txt', { code: 1, stdout: '', stderr });

describe('resolverFailure', () => {
  it('retries only a registry that did not answer', () => {
    expect(failed('error: Failed to fetch: HTTP status: 503 Service Unavailable')).toBeInstanceOf(TransientError);
    expect(failed('error: request failed: status code 429 Too Many Requests')).toBeInstanceOf(TransientError);
    expect(failed('Caused by: tcp connect error: Connection refused (os error 111)')).toBeInstanceOf(TransientError);
  });

  it('does not take a version number for a server error', () => {
    const error = failed('  × Because foo==1.503 depends on bar>=2.502 and bar is unavailable, foo==1.503 cannot be used.');
    expect(error).toBeInstanceOf(StageError);
    expect((error as StageError).reason?.kind).toBe('dependencies-unresolvable');
  });

  it('names an unparseable requirement and a version-control URL for what they are, permanently', () => {
    const parse = failed("error: Couldn't parse requirement in `requirements.txt` at position 0\n  Caused by: Expected package name");
    expect(parse).toBeInstanceOf(StageError);
    expect((parse as StageError).reason).toMatchObject({ kind: 'dependencies-unresolvable', summary: 'uv pip compile: a requirement line does not parse' });
    const scheme = failed('error: Unsupported URL prefix `git://` in URL: `git://github.com/x/y.git#egg=y`');
    expect((scheme as StageError).reason?.kind).toBe('unsupported');
  });
});
