import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { touchedFunctions, touchedTest } from '../../src/judge/touched-tests';
import { bundlePath, cloneBundle, pullRequestChain, SHARED_REPOS } from '../support/real-repos';

const withCobra = bundlePath('spf13+cobra') ? test : test.skip;
if (!bundlePath('spf13+cobra')) console.warn(`skipping: no spf13+cobra.bundle in ${SHARED_REPOS}`);

withCobra(
  "cobra #2210: the test functions its diff edits are named by git's Go rules, and their subtests match",
  async () => {
    // #2210 adds cases inside existing table-driven tests; its test file does not build at the base.
    const repo = await cloneBundle('spf13+cobra');
    const pr = (await pullRequestChain(repo, 'spf13/cobra', 2210, 'main')).prs[0];
    const touched = await touchedFunctions(repo, pr.baseSha, pr.mergeSha, ['completions_test.go']);
    expect(touched).toContain('TestFlagNameCompletionRepeat');
    expect(touched).not.toContain('func');
    expect(touchedTest('github.com/spf13/cobra/TestFlagNameCompletionRepeat/case_1', touched)).toBe(true);
    expect(touchedTest('github.com/spf13/cobra/TestNoArgs', touched)).toBe(false);
    expect(await touchedFunctions(repo, pr.baseSha, pr.mergeSha, [])).toEqual(new Set());
  },
  120_000,
);

/** An empty repository in a fresh directory, and git run in it. */
function scratchRepo() {
  const repo = mkdtempSync(join(tmpdir(), 'chainsmith-touched-'));
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@localhost', ...args], {
      cwd: repo,
      encoding: 'utf8',
    }).trim();
  return { repo, git };
}

test('a test added below another does not count the one above it, which git names in the hunk header; an edited one counts', async () => {
  const { repo, git } = scratchRepo();
  const java = (extra: string, body = 'assertEquals(1, f());') =>
    `class FTest {\n    @Test\n    public void keepsOne() {\n        ${body}\n    }\n${extra}}\n`;
  const py = (extra: string, body = 'assert f() == 1') => `def test_one():\n    ${body}\n${extra}`;
  git('init', '-q');
  mkdirSync(join(repo, 'src'));
  writeFileSync(join(repo, 'src/FTest.java'), java(''));
  writeFileSync(join(repo, 'test_f.py'), py(''));
  git('add', '.');
  git('commit', '-qm', 'base');
  const base = git('rev-parse', 'HEAD');
  // Added below: a Java method with its annotation, a Python test with a blank line first.
  writeFileSync(
    join(repo, 'src/FTest.java'),
    java('\n    @Test\n    public void addsTwo() {\n        assertEquals(2, g());\n    }\n'),
  );
  writeFileSync(join(repo, 'test_f.py'), py('\n\ndef test_two():\n    assert g() == 2\n'));
  git('commit', '-qam', 'add tests');
  const added = git('rev-parse', 'HEAD');
  expect(await touchedFunctions(repo, base, added, ['src/FTest.java', 'test_f.py'])).toEqual(new Set());
  // Edited in place: both bodies change.
  writeFileSync(join(repo, 'src/FTest.java'), java('', 'assertEquals(1, f(0));'));
  writeFileSync(join(repo, 'test_f.py'), py('', 'assert f(0) == 1'));
  git('commit', '-qam', 'edit tests');
  const edited = git('rev-parse', 'HEAD');
  expect(await touchedFunctions(repo, added, edited, ['src/FTest.java', 'test_f.py'])).toEqual(
    new Set(['keepsOne', 'test_one']),
  );
});

test("a change to a test's marks or its signature counts that test, not the one above it that git's hunk header names", async () => {
  const { repo, git } = scratchRepo();
  const files = ['tests/it.rs', 'test_p.py', 'src/PTest.java'];
  const write = (rust: string, python: string, java: string) =>
    [rust, python, java].forEach((text, i) => writeFileSync(join(repo, files[i]), text));
  const rust = (mark: string) =>
    `#[test]\nfn above() {\n    assert!(true);\n}\n\n${mark}\n#[test]\nfn marked() {\n    assert_eq!(f(), 1);\n}\n`;
  const python = (cases: string, signature = 'def test_cases(a, b):', body = 'assert a < b') =>
    `def test_above():\n    assert True\n\n\n@pytest.mark.parametrize(\n    "a,b",\n    [\n        (1, 2),\n${cases}    ],\n)\n${signature}\n    ${body}\n`;
  const java = (mark: string) =>
    `class PTest {\n    @Test\n    void above() {\n        assertTrue(true);\n    }\n\n${mark}    @Test\n    void marked() {\n        assertEquals(1, f());\n    }\n}\n`;
  git('init', '-q');
  mkdirSync(join(repo, 'tests'));
  mkdirSync(join(repo, 'src'));
  write(rust('#[cfg(feature = "std")]'), python(''), java('    @Disabled\n'));
  git('add', '.');
  git('commit', '-qm', 'base');
  const base = git('rev-parse', 'HEAD');
  // Only marks change: an attribute's condition, a parametrize case added, an annotation removed.
  write(rust('#[cfg(feature = "alloc")]'), python('        (3, 4),\n'), java(''));
  git('commit', '-qam', 'marks');
  const marks = git('rev-parse', 'HEAD');
  expect(await touchedFunctions(repo, base, marks, files)).toEqual(new Set(['marked', 'test_cases']));
  // A statement's attribute inside a body is no function's mark: the header's function counts.
  writeFileSync(
    join(repo, files[0]),
    rust('#[cfg(feature = "alloc")]').replace('    assert!(true);', '    #[allow(unused)]\n    let x = 1;'),
  );
  // A signature changed, and the body line below it: the function it declares counts, not the header's.
  writeFileSync(join(repo, files[1]), python('        (3, 4),\n', 'def test_cases(a, b, tmp_path):', 'assert a <= b'));
  git('commit', '-qam', 'statement and signature');
  const more = git('rev-parse', 'HEAD');
  expect(await touchedFunctions(repo, marks, more, files)).toEqual(new Set(['above', 'test_cases']));
});
