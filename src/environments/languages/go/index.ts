import type { LanguageSupport } from '../../contract';
import { detectGo } from './detect';
import { goRunner } from './go-test';

/** Go: a module cache filled on the host (detect.ts), tested with go test. */
export const go: LanguageSupport<'go', 'go', 'go'> = {
  name: 'go',
  title: 'Go',
  layouts: ['go.mod'],
  detect: (files, ctx) => detectGo(files, ctx.merged),
  runners: { go: goRunner },
  toolchains: { go: 'go version' },
  files: { tests: [/_test\.go$/], code: ['go'] },
};
