import Docker from 'dockerode';
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pullRequestChain } from '../support/real-repos';
import { testEnvironments } from '../support/environments';
import { hostHas } from './real-repos';

const docker = new Docker();
const cargo = hostHas('cargo');
if (!cargo) console.warn('skipping the era seed test: no cargo on this host');

/** The modification time of the one file `pattern` names in `image` (a throwaway container, no network). */
function mtimeIn(image: string, pattern: string): string {
  return execFileSync(
    'docker',
    ['run', '--rm', '--network', 'none', '--entrypoint', 'sh', image, '-c', `stat -c %Y ${pattern}`],
    { encoding: 'utf8' },
  ).trim();
}

(cargo ? test : test.skip)(
  "a later era of a crate is built from the earlier era's image: crates of unchanged versions are not compiled again, and the manifest says so",
  async () => {
    // Two eras of one crate (rust-version keeps the host cargo's lock file readable by the image's 1.65): PR #1 on the first Cargo.toml, PR #2 after a release changed it (its description, and one more crate).
    const repo = await mkdtemp(join(tmpdir(), 'chainsmith-eras-'));
    let day = 1;
    const git = (...args: string[]) => {
      const date = `2024-01-0${day++}T00:00:00Z`;
      return execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@localhost', ...args], {
        cwd: repo,
        stdio: 'pipe',
        env: { ...process.env, GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date },
      });
    };
    const manifest = (description: string, more = '') =>
      `[package]\nname = "eras"\nversion = "0.1.0"\nedition = "2018"\nrust-version = "1.63"\ndescription = "${description}"\n\n[dependencies]\nitoa = "=1.0.5"\n${more}`;
    const pr = async (n: number, value: number) => {
      git('checkout', '-q', '-b', `pr${n}`);
      await writeFile(
        join(repo, 'src/lib.rs'),
        `pub fn f() -> String { itoa::Buffer::new().format(${value}).to_string() }\n\n#[test]\nfn f_${n}() { assert_eq!(f(), "${value}"); }\n`,
      );
      git('commit', '-q', '-am', `PR ${n}`);
      git('update-ref', `refs/pull/${n}/head`, 'HEAD');
      git('checkout', '-q', 'main');
    };
    git('init', '-q', '-b', 'main');
    await mkdir(join(repo, 'src'));
    await writeFile(join(repo, 'Cargo.toml'), manifest('first'));
    await writeFile(join(repo, 'src/lib.rs'), 'pub fn f() -> String { String::new() }\n');
    execFileSync('cargo', ['generate-lockfile'], { cwd: repo, stdio: 'pipe' });
    git('add', '.');
    git('commit', '-q', '-m', 'first');
    await pr(1, 1);
    // The release also adds a crate: environments are keyed by what they hold, so an era whose packages
    // are the same would share the first era's image rather than seed from it.
    await writeFile(join(repo, 'Cargo.toml'), manifest('second', 'ryu = "=1.0.15"\n'));
    execFileSync('cargo', ['generate-lockfile'], { cwd: repo, stdio: 'pipe' });
    git('commit', '-q', '-am', 'second release');
    await pr(2, 2);

    const environments = testEnvironments(docker);
    const first = await environments.forStage(await pullRequestChain(repo, 'local/eras', 1, 'main'), 0);
    const second = await environments.forStage(await pullRequestChain(repo, 'local/eras', 2, 'main'), 0);
    try {
      expect(second.image).not.toBe(first.image);
      expect(first.manifest.seed).toBeUndefined();
      expect(second.manifest.seed).toMatchObject({
        image: first.image,
        builtAt: first.manifest.builtAt,
        depth: 1,
        reused: expect.stringMatching(/^the cargo target dir/),
      });
      // itoa 1.0.5 was compiled once, in the first era's build; the second era's image holds that same file.
      const rlib = '/home/agent/.cargo-target/debug/deps/libitoa-*.rlib';
      expect(mtimeIn(second.image, rlib)).toBe(mtimeIn(first.image, rlib));
    } finally {
      await docker
        .getImage(second.image)
        .remove()
        .catch(() => undefined);
      await docker
        .getImage(first.image)
        .remove()
        .catch(() => undefined);
      await rm(repo, { recursive: true, force: true });
    }
  },
  20 * 60_000,
);
