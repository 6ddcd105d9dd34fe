import Docker from 'dockerode';
import { randomBytes } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { goldTestsFor } from '../../../../src/judge/gold-validation';
import { ChainRepo } from '../../../support/chain-repo';
import { ownSandboxes, removeBuiltImagesAfterAll } from '../../../support/containers';
import { goldDeps, testEnvironments } from '../../../support/environments';
import { missingJdk, testIf } from '../../../support/preconditions';

const docker = new Docker();
const removedAfterAll = removeBuiltImagesAfterAll(docker);

afterAll(async () => {
  expect(await ownSandboxes(docker, 'chainsmith.gold')).toHaveLength(0);
});

/** A POM that compiles for Java 21 (`maven.compiler.release`), tested with JUnit 4. */
const POM = `<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>example</groupId><artifactId>shapes</artifactId><version>1.0</version>
  <properties><maven.compiler.release>21</maven.compiler.release><project.build.sourceEncoding>UTF-8</project.build.sourceEncoding></properties>
  <dependencies>
    <dependency><groupId>junit</groupId><artifactId>junit</artifactId><version>4.13.2</version><scope>test</scope></dependency>
  </dependencies>
  <build><plugins><plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-compiler-plugin</artifactId><version>3.13.0</version></plugin></plugins></build>
</project>
`;
/** Record patterns in a switch: Java 21, which javac 17 refuses. */
const shapes = (square: string) => `package s;

public class Shapes {
  public sealed interface Shape permits Square, Rect {}
  public record Square(int side) implements Shape {}
  public record Rect(int w, int h) implements Shape {}

  public static int area(Shape shape) {
    return switch (shape) {
      case Square(int side) -> ${square};
      case Rect(int w, int h) -> w * h;
    };
  }
}
`;
const test = `package s;

import org.junit.Test;
import static org.junit.Assert.assertEquals;

public class ShapesTest {
  @Test public void rect() { assertEquals(6, Shapes.area(new Shapes.Rect(2, 3))); }
  @Test public void square() { assertEquals(9, Shapes.area(new Shapes.Square(3))); }
}
`;

/**
 * detect.ts and images/host-java: a project that compiles for Java 21 is past Debian's JDK 17, whose
 * javac refuses `--release 21`. Its environment is the java image with the host's newest JDK copied
 * in (JAVA_HOME and first on PATH, on the host's fetch as in the image): the PR that fixes a square's
 * area verifies there, its new test failing before the change and the other passing on both sides.
 */
testIf(missingJdk(21))(
  "a POM for Java 21 builds and verifies on the host's newer JDK",
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chainsmith-maven-jdk-'));
    const repo = await ChainRepo.create(join(dir, 'shapes'), {
      'pom.xml': POM,
      'src/main/java/s/Shapes.java': shapes('side + side'),
      'src/test/java/s/ShapesTest.java': test.replace(/\n {2}@Test public void square.*\n/, '\n'),
      NONCE: randomBytes(8).toString('hex'),
    });
    const fix = await repo.pr(1, 'A square is side times side', {
      'src/main/java/s/Shapes.java': shapes('side * side'),
      'src/test/java/s/ShapesTest.java': test,
    });
    const chain = repo.chain('gen/shapes-java21', [fix]);
    const environments = removedAfterAll(testEnvironments(docker));
    const gold = await goldTestsFor(goldDeps(docker, dir, environments), chain, 0);
    expect(gold).toMatchObject({
      status: 'verified',
      failToPass: ['s.ShapesTest#square'],
      passToPass: ['s.ShapesTest#rect'],
    });
    const env = await environments.forStage(chain, 0);
    expect(env.recipe.toolchain.note).toMatch(/^the POM compiles for Java 21: the host's JDK \d+ rather than/);
    expect(env.manifest.toolchain.version).toMatch(/^openjdk version "(2[1-9]|[3-9]\d)/);
  },
  1_200_000,
);
