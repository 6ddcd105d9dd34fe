// no-docker: needs no Docker engine, so npm test runs it with DOCKER_HOST pointing nowhere (jest.config.js)
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GOPATH } from '../../../../src/environments/languages/go/detect';
import { detectGopath } from '../../../../src/environments/languages/go/gopath';
import { gitRepoFiles } from '../../../../src/environments/repo-files';
import { ChainRepo, type Files } from '../../../support/chain-repo';

async function detect(files: Files, repoName = 'owner/r') {
  const repo = await ChainRepo.create(join(await mkdtemp(join(tmpdir(), 'chainsmith-gopath-detect-')), 'r'), files);
  const sha = await repo.head();
  return detectGopath(await gitRepoFiles(repo.path, sha), {
    repo: { path: repo.path, sha },
    repoName,
    baseDate: async () => new Date('2017-01-01'),
    settings: {},
  });
}

describe('which repositories without a root go.mod are Go of the GOPATH era', () => {
  it('one with Go at its root is; a Python project with a Go generator at its root is not', async () => {
    expect(await detect({ 'main.go': 'package main\n', 'lib/l.go': 'package lib\n' })).toMatchObject({
      origin: 'go-gopath',
    });
    const python = Object.fromEntries(['a', 'b', 'c', 'd', 'e'].map((n) => [`pkg/${n}.py`, 'x = 1\n']));
    expect(await detect({ 'setup.py': 'setup()\n', 'gen.go': 'package main\n', ...python })).toBeUndefined();
  });

  it('one mined from a folder builds where a subpackage imports its root package from', async () => {
    // viper in 2015: no import comment, and only remote/ imports the root, for viper.RemoteProvider.
    const recipe = await detect(
      {
        'viper.go': 'package viper\n\ntype RemoteProvider interface{}\n',
        'remote/remote.go':
          'package remote\n\nimport "github.com/spf13/viper"\n\nfunc Get(rp viper.RemoteProvider) {}\n',
      },
      'viper',
    );
    expect(recipe?.workDir).toBe(`${GOPATH}/src/github.com/spf13/viper`);
  });

  it("one whose module is in a subdirectory (go/go.mod) is not: its self-imports are a module's", async () => {
    expect(
      await detect({
        Makefile: 'all:\n',
        'go/go.mod': 'module example.com/sdk\n',
        'go/sdk.go': 'package sdk\n\nimport "example.com/sdk/pkg"\n',
        'go/pkg/p.go': 'package pkg\n',
      }),
    ).toBeUndefined();
  });
});
