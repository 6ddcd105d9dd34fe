import type { ScaffoldKind } from '../schemas';
import { BASH_SCAFFOLD } from './bash-scaffold';
import type { Scaffold } from './scaffold';
import { TOOLS_SCAFFOLD } from './tools-scaffold';

const SCAFFOLDS: Record<ScaffoldKind, Scaffold> = { tools: TOOLS_SCAFFOLD, bash: BASH_SCAFFOLD };

/** A trajectory's scaffold; one saved before there were two is a tools one. */
export function scaffoldFor(kind: ScaffoldKind | undefined): Scaffold {
  return SCAFFOLDS[kind ?? 'tools'];
}
