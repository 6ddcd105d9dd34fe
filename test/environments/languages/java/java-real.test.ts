import { realTest, validateReal as validate } from '../../../support/real-validation';

/** Java from a real repository (jsoup): Maven's local repository filled on the host, Surefire's per-test reports. */
realTest('jhy+jsoup')(
  "jsoup #2570: Maven's local repository filled on the host, Surefire reports per test; the PR's tests fail before and pass after",
  async () => {
    const { env, gold } = await validate('jhy+jsoup', 'jhy/jsoup', 2570, 'master');
    expect(env).toMatchObject({ language: 'java', runner: 'maven', recipe: { origin: 'java-maven' } });
    expect(env.manifest.toolchain.version).toMatch(/17\./);
    expect(env.manifest.resolution).toMatchObject({ ecosystem: 'maven' });
    expect(gold).toMatchObject({ status: 'verified', runner: 'maven' });
    expect(gold.failToPass.sort()).toEqual([
      'org.jsoup.parser.XmlTreeBuilderTest#deepEndTagClosesElement',
      'org.jsoup.parser.XmlTreeBuilderTest#xmlParserHasDefaultDepth',
    ]);
    expect(gold.passToPass.length).toBeGreaterThan(50);
  },
  30 * 60_000,
);
