import type { LanguageSupport } from '../../contract';
import { detectNode } from './detect';
import { nodeRunner } from './npm-test';

/** Node.js: an npm cache filled on the host (detect.ts), tested with the package's test script. */
export const node: LanguageSupport<'node', 'node', 'node'> = {
  name: 'node',
  title: 'Node.js',
  layouts: ['package.json'],
  detect: (files) => detectNode(files),
  runners: { node: nodeRunner },
  toolchains: { node: 'echo "node $(node --version) npm $(npm --version)"' },
  files: {
    tests: [/\.(test|spec)\.[cm]?[jt]sx?$/],
    testDirectories: ['__tests__'],
    code: ['ts', 'tsx', 'js', 'jsx', 'mjs', 'cjs'],
  },
};
