import Docker from 'dockerode';
import { randomBytes } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mavenFailure } from '../../../../src/environments/languages/java/maven-failure';
import { goldTestsFor } from '../../../../src/judge/gold-validation';
import { ChainRepo } from '../../../support/chain-repo';
import { ownSandboxes, removeBuiltImagesAfterAll } from '../../../support/containers';
import { goldDeps, testEnvironments } from '../../../support/environments';
import { missingTool, testIf } from '../../../support/preconditions';

const docker = new Docker();
const removedAfterAll = removeBuiltImagesAfterAll(docker);

afterAll(async () => {
  expect(await ownSandboxes(docker, 'chainsmith.gold')).toHaveLength(0);
});

/** A parent POM no registry has, as a SNAPSHOT parent is once registries have dropped it. */
const PARENT = 'org.chainsmith.unserved:never-parent:pom:1.0-SNAPSHOT';
const [group, artifact, , version] = PARENT.split(':');
const pom = `<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <parent><groupId>${group}</groupId><artifactId>${artifact}</artifactId><version>${version}</version><relativePath/></parent>
  <groupId>example</groupId><artifactId>orphan</artifactId><version>1.0</version>
</project>
`;
const sum = (op: string) =>
  `package m;\n\npublic class Sum {\n  public static int of(int a, int b) { return a ${op} b; }\n}\n`;

/**
 * A project whose parent POM cannot be resolved: Maven reads no project and runs no goal. The stage's
 * reason said only "mvn test (resolving only) failed", the parent's coordinates being among the
 * tail's download lines; its summary now names the parent and the project that needs it.
 */
testIf(missingTool('mvn'))(
  "a parent POM no registry serves is named in the stage's reason",
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chainsmith-maven-'));
    const repo = await ChainRepo.create(join(dir, 'orphan'), {
      'pom.xml': pom,
      'src/main/java/m/Sum.java': sum('-'),
      'src/test/java/m/SumTest.java': 'package m;\n\npublic class SumTest {}\n',
      NONCE: randomBytes(8).toString('hex'),
    });
    const pr = await repo.pr(1, 'Add, not subtract', {
      'src/main/java/m/Sum.java': sum('+'),
      'src/test/java/m/SumTest.java': 'package m;\n\npublic class SumTest { }\n',
    });
    const chain = repo.chain('gen/orphan', [pr]);
    const deps = goldDeps(docker, dir, removedAfterAll(testEnvironments(docker)));

    await expect(goldTestsFor(deps, chain, 0)).rejects.toMatchObject({
      reason: {
        kind: 'dependencies-unresolvable',
        summary: expect.stringContaining(`parent POM ${PARENT} of example:orphan:1.0`),
      },
    });
  },
  1_200_000,
);

/** Maven 3.9's wording, and an imported BOM's: the POM is named alike. */
test("an imported BOM that could not be resolved is named, in Maven 3.9's wording too", () => {
  const output =
    '[ERROR] Non-resolvable import POM: The following artifacts could not be resolved: a.b:bom:pom:2.0 (absent): ' +
    'Could not find artifact a.b:bom:pom:2.0 in central @ line 40, column 19\n[ERROR] The build could not read 1 project -> [Help 1]\n';
  expect(mavenFailure('mvn test')(output)).toEqual({
    kind: 'dependencies-unresolvable',
    summary: "mvn test failed: the import POM a.b:bom:pom:2.0 could not be resolved from the host's Maven repositories",
  });
});
