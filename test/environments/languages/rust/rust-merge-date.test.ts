import Docker from 'dockerode';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ChainRepo } from '../../../support/chain-repo';
import { removeImages } from '../../../support/containers';
import { testEnvironments } from '../../../support/environments';
import { missingTool, testIf } from '../../../support/preconditions';

const docker = new Docker();
const images: string[] = [];

afterAll(async () => {
  await removeImages(docker, images);
});

const manifest = (itoa: string) =>
  `[package]\nname = "digits"\nversion = "0.1.0"\nedition = "2018"\n\n[dependencies]\nitoa = "${itoa}"\n`;

/**
 * dependencies.ts, fetchMerge: a PR that raises a floor to a release published long after its base
 * (itoa 1.0.1 of December 2021 at the base; 1.0.10, published in December 2023, at a merge of
 * January 2024). Nothing published within cargo's later days of the base's date satisfies the merge, so
 * its lock could only be resolved undated, today's crates; it is resolved as of the merge's own date,
 * as a floor that does not resolve at the base's date is: itoa 1.0.10, not the newest 1.0 release.
 */
testIf(missingTool('cargo'))(
  "cargo: a merge that resolves only undated as of its base's date resolves as of its own",
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chainsmith-rust-merge-date-'));
    const repo = await ChainRepo.create(
      join(dir, 'repo'),
      {
        'Cargo.toml': manifest('1'),
        'src/lib.rs': 'pub fn show(n: u32) -> String {\n    itoa::Buffer::new().format(n).to_string()\n}\n',
      },
      new Date('2021-12-20T00:00:00Z'),
    );
    repo.at(new Date('2024-01-15T00:00:00Z'));
    const chain = repo.chain('gen/rust-merge-date', [
      await repo.pr(1, 'Require itoa 1.0.10', {
        'Cargo.toml': manifest('1.0.10'),
        'tests/show.rs': '#[test]\nfn shows() {\n    assert_eq!(digits::show(42), "42");\n}\n',
      }),
    ]);
    const lines: string[] = [];
    const environments = testEnvironments(docker, {}, join(dir, 'home'), (line) => lines.push(line));
    const env = await environments.forStage(chain, 0);
    images.push(env.image);
    const itoa = (env.manifest.resolution?.packages ?? []).filter((p) => p.name === 'itoa').map((p) => p.version);
    expect(itoa).toEqual(['1.0.1', '1.0.10']);
    expect(lines.join('\n')).toMatch(
      /resolve only undated as of the base's date 2021-12-20; as of their own, 2024-01-15/,
    );
  },
  20 * 60_000,
);
