import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DEPS_MOUNT } from '../../contract';
import { runTool } from '../../host-tools';
import { mustRun } from '../host-command';

/**
 * Git dependencies the host cannot fetch (a git server no registry client reaches): each is answered by a
 * stub repository of one commit, at the reference the manifest names, holding a crate of that name whose
 * source is a `compile_error!` naming it. cargo resolves the workspace with it (a member's build-dependency,
 * flate2's systest → ctest, is resolved with the root's though no test at the root builds it), and only a
 * build that compiles the crate fails, with that message. Git reads the stubs in place of the real
 * repositories (`url.<stub>.insteadOf`), so the lock and the sandboxes' cargo see the manifest's own source.
 */

/** Under the dependency directory: a stub repository per crate, and `urls`, one line `NAME URL` each. */
export const GIT_STUBS = 'git-stubs';
/** Under GIT_STUBS: the packages the image builds, one a line, where some of the root's build a stub. */
export const STUB_FREE = 'packages';

export interface GitStub {
  name: string;
  /** The repository as the manifest names it, without cargo's `?branch=…`. */
  url: string;
}

/** A git dependency's reference as the manifest names it: a branch, a tag, or a revision (`rev`). */
export type StubReference = { branch?: string; tag?: string; rev?: string };

/**
 * The git dependency whose repository a failed cargo run could not update (`failed to load source for
 * dependency `ctest`` … `unable to update https://github.com/a/ctest?branch=b`), with the reference it
 * asks for.
 */
export function unfetchedGit(output: string): (GitStub & StubReference) | undefined {
  const name = /failed to load source for dependency `([^`]+)`/.exec(output)?.[1];
  const source = /^\s*unable to update ((?:https?|ssh|git):\/\/[^\s?#]+)(?:\?(branch|tag|rev)=(\S+))?\s*$/m.exec(
    output,
  );
  if (!name || !source) return undefined;
  return { name, url: source[1], ...(source[2] ? { [source[2]]: source[3] } : {}) };
}

/**
 * The ref a stub holds for a `rev`: cargo fetches a revision it cannot fetch as a commit (no stub holds
 * that commit id) with every branch and tag, then resolves it as git does a name, so a tag of that name
 * answers it, a full commit id or a short one alike; a rev that is a ref (`refs/pull/1/head`) is fetched
 * as that ref.
 */
function revRef(rev: string): string {
  return rev.startsWith('refs/') ? rev : `refs/tags/${rev}`;
}

/** What a run says of a git dependency it could not fetch, naming it ('the git dependency `iovec` (URL) cannot be fetched from this host'). */
export function unfetchedGitSummary(output: string): string | undefined {
  const name = /failed to load source for dependency `([^`]+)`/.exec(output)?.[1];
  const url = /^\s*unable to update ((?:https?|ssh|git):\/\/\S+?)\s*$/m.exec(output)?.[1];
  return name && url ? `the git dependency \`${name}\` (${url}) cannot be fetched from this host` : undefined;
}

/** Writes the stub repository of `stub` under `dir` (GIT_STUBS) and lists it in `urls`. */
export async function writeGitStub(dir: string, stub: GitStub & StubReference, stubs: GitStub[]): Promise<void> {
  const repo = join(dir, stub.name);
  await mkdir(join(repo, 'src'), { recursive: true });
  await writeFile(join(repo, 'Cargo.toml'), `[package]\nname = "${stub.name}"\nversion = "0.0.0"\n`);
  await writeFile(
    join(repo, 'src', 'lib.rs'),
    `compile_error!("the git dependency \\"${stub.name}\\" (${stub.url}) could not be fetched on the host: this environment holds an empty stand-in");\n`,
  );
  // One fixed author and date: the same stub is the same commit in every fetch.
  const env = {
    GIT_AUTHOR_NAME: 'chainsmith',
    GIT_AUTHOR_EMAIL: 'chainsmith@localhost',
    GIT_AUTHOR_DATE: '2000-01-01T00:00:00Z',
    GIT_COMMITTER_NAME: 'chainsmith',
    GIT_COMMITTER_EMAIL: 'chainsmith@localhost',
    GIT_COMMITTER_DATE: '2000-01-01T00:00:00Z',
  };
  const git = (args: string[]) => mustRun('git (a stub repository)', 'git', args, { cwd: repo, env });
  await git(['init', '-q', '-b', stub.branch ?? 'main']);
  await git(['add', '-A']);
  await git(['commit', '-q', '-m', 'stand-in for a repository the host could not fetch']);
  if (stub.tag) await git(['tag', stub.tag]);
  if (stub.rev) await git(['update-ref', revRef(stub.rev), 'HEAD']);
  stubs.push({ name: stub.name, url: stub.url });
  await writeFile(join(dir, 'urls'), stubs.map((s) => `${s.name} ${s.url}\n`).join(''));
}

/** The environment under which cargo (through git's command line) reads each stub under `dir` for its repository. */
export function stubEnv(dir: string, stubs: GitStub[]): Record<string, string> {
  if (!stubs.length) return {};
  const env: Record<string, string> = {
    CARGO_NET_GIT_FETCH_WITH_CLI: 'true',
    GIT_CONFIG_COUNT: String(stubs.length),
  };
  stubs.forEach((s, i) => {
    env[`GIT_CONFIG_KEY_${i}`] = `url.file://${join(dir, s.name)}.insteadOf`;
    env[`GIT_CONFIG_VALUE_${i}`] = s.url;
  });
  return env;
}

/**
 * What a plain `cargo test` at the root builds (its default members: the root package, or a virtual
 * workspace's members) given the stubs (for this platform, dev-dependencies of the workspace's own
 * packages in). Where every one of those packages builds a stub, `needed` is the first: the tested crate
 * needs the repository itself, which no stand-in replaces. Where only some do (one member of a virtual
 * workspace), `packages` names the others, which the image builds in their place; a PR whose tests are
 * in them runs, one whose tests build a stub says so.
 */
export async function stubbedBuilds(
  stubs: GitStub[],
  run: { cwd: string; signal?: AbortSignal; env: Record<string, string> },
): Promise<{ needed?: GitStub; packages?: string[] }> {
  if (!stubs.length) return {};
  const args = ['tree', '--no-dedupe', '-e', 'normal,build,dev', '--prefix', 'depth', '-f', '{p}'];
  const tree = await runTool('cargo', args, run);
  // Where cargo cannot tell, each is taken as needed.
  if (tree.code !== 0) return { needed: stubs[0] };
  // One tree a default member, each line `DEPTH NAME vVERSION (SOURCE)`, the member's own at depth 0.
  const members = tree.stdout
    .split(/\n\s*\n/)
    .map((block) => block.split('\n').map((l) => l.replace(/^\d+/, '')))
    .filter((lines) => lines[0])
    .map((lines) => ({
      name: lines[0].split(' ')[0],
      stub: stubs.find((s) => lines.some((l) => l.startsWith(`${s.name} v0.0.0 (${s.url}`))),
    }));
  const built = members.filter((m) => !m.stub).map((m) => m.name);
  if (!built.length) return { needed: members.find((m) => m.stub)?.stub };
  return built.length < members.length ? { packages: built } : {};
}

/**
 * The image's cargo fetches each stub from the dependency directory into its own git database
 * (CARGO_HOME/git), where every later offline run finds it: a git source cannot be vendored for a build
 * without a Cargo.lock (cargo wants the lock's commit first). The mount is another user's: git is told it is safe.
 */
export const FETCH_GIT_STUBS = [
  `if [ -s ${DEPS_MOUNT}/${GIT_STUBS}/urls ]; then`,
  "  export GIT_CONFIG_KEY_0=safe.directory GIT_CONFIG_VALUE_0='*'; n=1",
  '  while read -r name url; do',
  `    export "GIT_CONFIG_KEY_$n=url.file://${DEPS_MOUNT}/${GIT_STUBS}/$name.insteadOf" "GIT_CONFIG_VALUE_$n=$url"; n=$((n + 1))`,
  `  done <${DEPS_MOUNT}/${GIT_STUBS}/urls`,
  '  GIT_CONFIG_COUNT=$n CARGO_NET_OFFLINE=false CARGO_NET_GIT_FETCH_WITH_CLI=true cargo fetch',
  'fi',
  // The packages the image builds where a member builds a stub (stubbedBuilds), as `-p NAME` each.
  'built=',
  `if [ -s ${DEPS_MOUNT}/${GIT_STUBS}/${STUB_FREE} ]; then`,
  `  while read -r p; do built="$built -p $p"; done <${DEPS_MOUNT}/${GIT_STUBS}/${STUB_FREE}`,
  'fi',
].join('\n');

/**
 * cargo vendor's source replacement without the stubs' repositories (FETCH_GIT_STUBS serves them), and
 * the vendored copies of their crates to remove, from its `Vendoring NAME vX (SRC) to DEST` lines.
 */
export function withoutStubs(
  vendorConfig: string,
  vendorLog: string,
  stubs: GitStub[],
): { config: string; copies: string[] } {
  const stubbed = (text: string) => stubs.some((s) => text.includes(`git = "${s.url}"`));
  const blocks = vendorConfig.split(/\n(?=\[)/).filter((block) => !stubbed(block));
  // A vendored directory nothing is replaced with any more (the stubs were all): NOTHING_VENDORED writes its own.
  const replaced = blocks.some((block) => /^replace-with\s*=/m.test(block));
  const config = blocks.filter((block) => replaced || !/^\[source\.vendored-sources\]/m.test(block)).join('\n');
  const copies = [...vendorLog.matchAll(/^\s*Vendoring (\S+) v0\.0\.0 \((.+)\) to (.+)$/gm)]
    .filter((m) => stubs.some((s) => s.name === m[1]) && /\/git\/checkouts\//.test(m[2]))
    .map((m) => m[3].trim());
  return { config, copies };
}
