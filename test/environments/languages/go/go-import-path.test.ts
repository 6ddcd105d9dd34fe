import { goImportPath } from '../../../../src/environments/languages/go/import-path';

describe('the import path of a Go repository without go.mod', () => {
  it("is the root package's import comment, or a subpackage's with its directory taken off", () => {
    expect(
      goImportPath([
        { path: 'cmd/tool/main.go', text: 'package main // import "example.test/other/cmd/tool"\n' },
        { path: 'cobra.go', text: 'package cobra // import "github.com/spf13/cobra"\n\nimport "fmt"\n' },
      ]),
    ).toEqual({ path: 'github.com/spf13/cobra', how: 'the import comment in cobra.go' });
    expect(
      goImportPath([{ path: 'doc/md.go', text: '// Package doc.\npackage doc /* import "gopkg.in/x/y.v1/doc" */\n' }]),
    ).toEqual({ path: 'gopkg.in/x/y.v1', how: 'the import comment in doc/md.go' });
  });

  it("is what most of the repository's imports of its own directories agree on, never a standard-library path", () => {
    const sources = [
      { path: 'root.go', text: 'package root\n\nimport (\n\t"net/http"\n\t"fmt" // printing\n)\n' },
      { path: 'http/h.go', text: 'package http\n' },
      {
        path: 'cmd/cmd.go',
        text: 'package cmd\n\nimport (\n\tr "example.test/me/root"\n\t"example.test/me/http"\n)\n',
      },
      {
        path: 'doc/doc.go',
        text: 'package doc\n\nimport "example.test/me/cmd"\nimport _ "example.test/other/lib/doc"\n',
      },
      { path: 'root/r.go', text: 'package root\n' },
    ];
    expect(goImportPath(sources, 'owner/name')).toEqual({
      path: 'example.test/me',
      how: "the repository's imports of its own packages (cmd)",
    });
  });

  it('prefers, among roots as many directories agree on, the one whose root package the repository imports', () => {
    // cobra in 2015: a cobra/ directory (its generator) and cobra/cmd, no import comment.
    const sources = [
      { path: 'cobra.go', text: 'package cobra\n' },
      { path: 'cobra/cmd/root.go', text: 'package cmd\n\nimport "github.com/spf13/cobra"\n' },
      { path: 'cobra/main.go', text: 'package main\n\nimport "github.com/spf13/cobra/cobra/cmd"\n' },
    ];
    expect(goImportPath(sources)?.path).toBe('github.com/spf13/cobra');
  });

  it("takes no vote from what the repository vendors, settles a tie by the repository's name, never by order", () => {
    // errors/ is the repository's own directory, and github.com/pkg/errors a dependency it imports.
    const sources = [
      { path: 'a.go', text: 'package a\n\nimport "github.com/pkg/errors"\n' },
      { path: 'errors/e.go', text: 'package errors\n' },
      { path: 'util/u.go', text: 'package util\n' },
      { path: 'cmd/x/main.go', text: 'package main\n\nimport "example.com/me/a/util"\n' },
    ];
    expect(goImportPath(sources, 'me/a')?.path).toBe('example.com/me/a');
    expect(goImportPath(sources, 'me/other')).toMatchObject({ path: 'github.com/me/other' });
    expect(goImportPath(sources, 'me/other', ['github.com/pkg/errors'])?.path).toBe('example.com/me/a');
  });

  it("reads the root package's external tests: package yaml_test importing gopkg.in/yaml.v2 names the root", () => {
    const sources = [
      { path: 'yaml.go', text: 'package yaml\n' },
      { path: 'decode_test.go', text: 'package yaml_test\n\nimport (\n\t"testing"\n\t"gopkg.in/yaml.v2"\n)\n' },
    ];
    expect(goImportPath(sources, 'go-yaml/yaml')?.path).toBe('gopkg.in/yaml.v2');
  });

  it('reads a subpackage that imports the root package by its name for a name the root declares', () => {
    // viper in 2015, mined from a folder: remote/ imports github.com/spf13/viper for viper.RemoteProvider.
    const remote = {
      path: 'remote/remote.go',
      text: 'package remote\n\nimport (\n\t"github.com/spf13/viper"\n\t"io"\n)\n\nfunc Get(rp viper.RemoteProvider) io.Reader { return nil }\n',
    };
    const root = { path: 'viper.go', text: 'package viper\n\ntype RemoteProvider interface{}\n' };
    expect(goImportPath([root, remote], 'viper')).toEqual({
      path: 'github.com/spf13/viper',
      how: "the repository's imports of its own packages (.)",
    });
    // A third-party package of the root's name, used for names the root does not declare, names nothing.
    const other = { ...root, text: 'package viper\n\ntype Other interface{}\n' };
    expect(goImportPath([other, remote], 'viper')).toBeUndefined();
  });

  it("falls back on the repository's name, and is undefined where nothing tells", () => {
    const sources = [{ path: 'main.go', text: 'package main\n\nimport "fmt"\n' }];
    expect(goImportPath(sources, 'acme/tool')).toEqual({
      path: 'github.com/acme/tool',
      how: "the repository's name acme/tool",
    });
    const sub = [...sources, { path: 'sub/s.go', text: 'package sub\n' }];
    expect(goImportPath(sub)).toBeUndefined();
    expect(goImportPath(sub, 'tool')).toBeUndefined();
  });

  it('is a path of its own for one root package the repository never imports, whatever its name', () => {
    // envconfig before go.mod, mined from a folder: package envconfig and its internal tests, no import comment.
    const sources = [
      { path: 'envconfig.go', text: 'package envconfig\n\nimport "os"\n' },
      { path: 'envconfig_test.go', text: 'package envconfig\n\nimport "testing"\n' },
    ];
    expect(goImportPath(sources, 'envconfig')?.path).toBe('local.invalid/envconfig');
    expect(goImportPath(sources, '/tmp/a b')?.path).toBe('local.invalid/repo');
    expect(goImportPath(sources)?.path).toBe('local.invalid/repo');
  });
});
