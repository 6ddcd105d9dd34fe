import Docker from 'dockerode';
import { removeEnvImages } from '../../bench/validation/child';
import { MANIFEST_LABEL } from '../../src/environments/manifest';
import { baseImageTag } from '../../src/environments/images';

const docker = new Docker();
/** A language no real image has, so that the removal this test asks for touches no other test's images. */
const LANGUAGE = 'envimages-test-lang';
const TAGS = { own: 'own', sameLanguage: 'same-language', otherLanguage: 'other-language' } as const;
const tag = (name: string) => `chainsmith-env:envimages-test-${name}`;

/** An image labelled as an environment of `repo` in `language`: the base image, committed with those labels. */
async function envImage(name: string, repo: string, language: string): Promise<void> {
  const c = await docker.createContainer({ Image: baseImageTag(), Cmd: ['true'], HostConfig: { NetworkMode: 'none' } });
  try {
    const manifest = JSON.stringify({ repo, language });
    await c.commit({
      repo: 'chainsmith-env',
      tag: `envimages-test-${name}`,
      changes: [`LABEL chainsmith.env.repo=${JSON.stringify(repo)} ${MANIFEST_LABEL}=${JSON.stringify(manifest)}`],
    });
  } finally {
    await c.remove();
  }
}

const exists = (name: string) =>
  docker
    .getImage(tag(name))
    .inspect()
    .then(() => true)
    .catch(() => false);

afterAll(async () => {
  for (const name of Object.values(TAGS))
    await docker
      .getImage(tag(name))
      .remove()
      .catch(() => undefined);
});

test("a bench run starts without the repository's environment images, nor any other of its language (keys leave the name out)", async () => {
  await envImage(TAGS.own, 'envimages-test/own', LANGUAGE);
  // Left by a run under another name (a profiling run, a test's generated repository): found by its key all the same.
  await envImage(TAGS.sameLanguage, 'envimages-test/other', LANGUAGE);
  await envImage(TAGS.otherLanguage, 'envimages-test/other', `${LANGUAGE}-2`);
  expect(await removeEnvImages(docker, 'envimages-test/own', LANGUAGE)).toBe(0);
  expect(await exists(TAGS.own)).toBe(false);
  expect(await exists(TAGS.sameLanguage)).toBe(false);
  // Another language's image cannot hold this run's environments: it stays.
  expect(await exists(TAGS.otherLanguage)).toBe(true);
});
