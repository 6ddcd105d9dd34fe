import type { LanguageSupport } from '../../contract';
import { detectGo } from './detect';
import { goRunner } from './go-test';
import { detectGopath } from './gopath';

/** Go: a module cache filled on the host (detect.ts), or a GOPATH before go.mod (gopath.ts), tested with go test. */
export const go: LanguageSupport<'go', 'go', 'go'> = {
  name: 'go',
  title: 'Go',
  layouts: ['go.mod', '*.go (GOPATH)'],
  detect: async (files, ctx) => (await detectGo(files, ctx.merged)) ?? detectGopath(files, ctx),
  runners: { go: goRunner },
  toolchains: { go: 'go version' },
  files: { tests: [/_test\.go$/], code: ['go'] },
};
