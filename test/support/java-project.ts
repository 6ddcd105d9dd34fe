import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { Chain } from '../../src/schemas';
import { ChainRepo } from './chain-repo';

/** JUnit 5 and Surefire 3, as most Maven projects of the last years have them, `dependency` beside JUnit's and `plugin` in the build. */
const pom = (name: string, plugin: string, dependency: string) => `<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>example</groupId><artifactId>${name}</artifactId><version>1.0</version>
  <properties><maven.compiler.source>11</maven.compiler.source><maven.compiler.target>11</maven.compiler.target><project.build.sourceEncoding>UTF-8</project.build.sourceEncoding></properties>
  <dependencies>
    <dependency><groupId>org.junit.jupiter</groupId><artifactId>junit-jupiter</artifactId><version>5.10.2</version><scope>test</scope></dependency>
${dependency ? `    ${dependency}\n` : ''}  </dependencies>
  <build><plugins>
    <plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-surefire-plugin</artifactId><version>3.2.5</version></plugin>
${plugin ? `    ${plugin}\n` : ''}  </plugins></build>
</project>
`;
const code = (op: string) =>
  `package m;\n\npublic class Sum {\n  public static int of(int a, int b) { return a ${op} b; }\n}\n`;
const test = (body: string, imports: string[]) =>
  `package m;\n\n${['org.junit.jupiter.api.Test', ...imports]
    .sort()
    .map((i) => `import ${i};\n`)
    .join('')}import static org.junit.jupiter.api.Assertions.assertEquals;\n\nclass SumTest {\n${body}}\n`;

/**
 * The Maven gold tests' project, `name` under `dir`, and its one PR (`gen/<name>`): Sum.of subtracts
 * and SumTest has `zero`; the PR makes it add and gives SumTest `tests`. `imports` are SumTest's
 * besides JUnit's Test; `dependency` is declared beside JUnit and `plugin` bound in the build; `files` are
 * more of the base's. A NONCE gives every run new SHAs, so an image an earlier run built is not reused.
 */
export async function sumChain(
  dir: string,
  name: string,
  {
    tests,
    imports = [],
    plugin = '',
    dependency = '',
    files = {},
  }: { tests: string; imports?: string[]; plugin?: string; dependency?: string; files?: Record<string, string> },
): Promise<Chain> {
  const repo = await ChainRepo.create(join(dir, name), {
    'pom.xml': pom(name, plugin, dependency),
    'src/main/java/m/Sum.java': code('-'),
    'src/test/java/m/SumTest.java': test('  @Test void zero() { assertEquals(0, Sum.of(0, 0)); }\n', imports),
    ...files,
    NONCE: randomBytes(8).toString('hex'),
  });
  const fix = await repo.pr(1, 'Add, not subtract', {
    'src/main/java/m/Sum.java': code('+'),
    'src/test/java/m/SumTest.java': test(tests, imports),
  });
  return repo.chain(`gen/${name}`, [fix]);
}
