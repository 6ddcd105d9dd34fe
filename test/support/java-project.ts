import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { Chain } from '../../src/schemas';
import { ChainRepo } from './chain-repo';

/** The test framework's dependency, SumTest's imports besides `imports`, and a test method's modifiers. */
const JUNIT = {
  5: {
    dependency: '<groupId>org.junit.jupiter</groupId><artifactId>junit-jupiter</artifactId><version>5.10.2</version>',
    imports: ['org.junit.jupiter.api.Test'],
    assertEquals: 'org.junit.jupiter.api.Assertions.assertEquals',
    visibility: '',
  },
  4: {
    dependency: '<groupId>junit</groupId><artifactId>junit</artifactId><version>4.12</version>',
    imports: ['org.junit.Test'],
    assertEquals: 'org.junit.Assert.assertEquals',
    visibility: 'public ',
  },
};
type Junit = keyof typeof JUNIT;

/** Surefire 3, with JUnit `junit` and `dependency` beside it, compiling for Java `release`, and `plugin` in the build. */
const pom = (
  name: string,
  release: string,
  junit: Junit,
  plugin: string,
  dependency: string,
) => `<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>example</groupId><artifactId>${name}</artifactId><version>1.0</version>
  <properties><maven.compiler.source>${release}</maven.compiler.source><maven.compiler.target>${release}</maven.compiler.target><project.build.sourceEncoding>UTF-8</project.build.sourceEncoding></properties>
  <dependencies>
    <dependency>${JUNIT[junit].dependency}<scope>test</scope></dependency>
${dependency ? `    ${dependency}\n` : ''}  </dependencies>
  <build><plugins>
    <plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-surefire-plugin</artifactId><version>3.2.5</version></plugin>
${plugin ? `    ${plugin}\n` : ''}  </plugins></build>
</project>
`;
const sum = (op: string) =>
  `package m;\n\npublic class Sum {\n  public static int of(int a, int b) { return a ${op} b; }\n}\n`;
const test = (junit: Junit, body: string, imports: string[]) =>
  `package m;\n\n${[...JUNIT[junit].imports, ...imports]
    .sort()
    .map((i) => `import ${i};\n`)
    .join('')}import static ${JUNIT[junit].assertEquals};\n\n${JUNIT[junit].visibility}class SumTest {\n${body}}\n`;

/**
 * The Maven gold tests' project, `name` under `dir`, and its one PR (`gen/<name>`): Sum.of subtracts
 * (`code('-')`, where `code` gives Sum.java) and SumTest has `zero` and `kept`; the PR makes it add
 * (`code('+')`) and gives SumTest `tests` and `kept`. The tests are JUnit `junit`'s (5 or 4), with
 * `imports` besides its Test; the POM compiles for Java `release`, `dependency` is declared beside JUnit
 * and `plugin` bound in the build; `files` are more of the base's. A NONCE gives every run new SHAs, so
 * an image an earlier run built is not reused.
 */
export async function sumChain(
  dir: string,
  name: string,
  {
    tests,
    kept = '',
    imports = [],
    junit = 5,
    release = '11',
    code = sum,
    plugin = '',
    dependency = '',
    files = {},
  }: {
    tests: string;
    kept?: string;
    imports?: string[];
    junit?: Junit;
    release?: string;
    code?: (op: string) => string;
    plugin?: string;
    dependency?: string;
    files?: Record<string, string>;
  },
): Promise<Chain> {
  const zero = `  @Test ${JUNIT[junit].visibility}void zero() { assertEquals(0, Sum.of(0, 0)); }\n`;
  const repo = await ChainRepo.create(join(dir, name), {
    'pom.xml': pom(name, release, junit, plugin, dependency),
    'src/main/java/m/Sum.java': code('-'),
    'src/test/java/m/SumTest.java': test(junit, kept + zero, imports),
    ...files,
    NONCE: randomBytes(8).toString('hex'),
  });
  const fix = await repo.pr(1, 'Add, not subtract', {
    'src/main/java/m/Sum.java': code('+'),
    'src/test/java/m/SumTest.java': test(junit, kept + tests, imports),
  });
  return repo.chain(`gen/${name}`, [fix]);
}
