import { unresolvedProjects } from '../../../../src/environments/languages/java/maven-unresolved';
import { unverifiedReason } from '../../../../src/judge/unverified-reason';

const SUMMARY =
  '[INFO] Reactor Summary for duo 1.0:\n[INFO] duo .... SUCCESS [  0.002 s]\n[INFO] core .... SUCCESS [  1.2 s]\n[INFO] extra .... FAILURE [  0.2 s]\n';

test("a -fae build whose only failures are projects' dependencies names them (Maven 3.8's one line, 3.9's several)", () => {
  const maven38 = `${SUMMARY}[ERROR] Failed to execute goal on project extra: Could not resolve dependencies for project example:extra:jar:1.0: The following artifacts could not be resolved: a.b:c:jar:1.0, d.e:f:jar:tests:2.1: Could not find artifact a.b:c:jar:1.0 in central (https://registry.invalid/m2) -> [Help 1]\n`;
  expect(unresolvedProjects(maven38)).toEqual({
    projects: ['extra'],
    unresolved: ['extra'],
    artifacts: ['a.b:c:jar:1.0', 'd.e:f:jar:tests:2.1'],
  });
  const maven39 = `${SUMMARY}[ERROR] Failed to execute goal on project extra: Could not resolve dependencies for project example:extra:jar:1.0\n[ERROR] dependency: a.b:c:jar:1.0 (compile)\n[ERROR] \tCould not find artifact a.b:c:jar:1.0 in central (https://registry.invalid/m2)\n`;
  expect(unresolvedProjects(maven39)).toEqual({
    projects: ['extra'],
    unresolved: ['extra'],
    artifacts: ['a.b:c:jar:1.0'],
  });
});

test("a real compile's failing project is left out where another project built; the stub's, or a lone project's, is not", () => {
  const unresolved =
    '[ERROR] Failed to execute goal on project extra: Could not resolve dependencies for project example:extra:jar:1.0: Could not find artifact a.b:c:jar:1.0 in central\n';
  const compile =
    '[ERROR] Failed to execute goal org.apache.maven.plugins:maven-compiler-plugin:3.11.0:compile (default-compile) on project core: Compilation failure\n';
  expect(unresolvedProjects(`${SUMMARY}${unresolved}${compile}`)).toBeUndefined();
  expect(unresolvedProjects(`${SUMMARY}${unresolved}${compile}`, true)).toEqual({
    projects: ['core', 'extra'],
    unresolved: ['extra'],
    artifacts: ['a.b:c:jar:1.0'],
  });
  expect(unresolvedProjects(unresolved)).toBeUndefined();
  // Only the root built: the project that failed is the build.
  const alone =
    '[INFO] Reactor Summary for duo 1.0:\n[INFO] duo .... SUCCESS [  0.002 s]\n[INFO] core .... FAILURE [  1.2 s]\n';
  expect(unresolvedProjects(`${alone}${compile}`, true)).toBeUndefined();
});

test("a stage's tests that need the unserved artifact say so; a longer version of it is another artifact", () => {
  const run = (output: string) => ({
    command: 'mvn test',
    ran: true,
    passed: false,
    exitCode: 1,
    output,
    timedOut: false,
    cases: [],
  });
  const reason = (output: string) =>
    unverifiedReason({
      command: 'mvn test',
      before: run(output),
      after: run(output),
      gold: { passToPass: [], brokenOnGold: [] },
      unserved: [{ name: 'a.b:c:jar:1.0', why: 'not served', named: 'bare' }],
      timeoutSeconds: 600,
    });
  const offline = (v: string) =>
    `[ERROR] Failed to execute goal on project extra: Could not resolve dependencies for project example:extra:jar:1.0: Cannot access central in offline mode and the artifact a.b:c:jar:${v} has not been downloaded from it before.`;
  expect(reason(offline('1.0'))).toMatchObject({ kind: 'dependencies-unresolvable' });
  expect(reason(offline('1.0.1'))).toMatchObject({ kind: 'tests-not-runnable' });
});
