// no-docker: needs no Docker engine, so npm test runs it with DOCKER_HOST pointing nowhere (jest.config.js)
import { splitPatch } from '../../../src/mining/landings/patch-split';

const section = (header: string, body: string) => `diff --git ${header}\n${body}`;

test('test files go to the test part, everything else to the code part, in order, nothing lost', () => {
  const patch = [
    section(
      'a/src/app.py b/src/app.py',
      'index 1..2 100644\n--- a/src/app.py\n+++ b/src/app.py\n@@ -1 +1 @@\n-a\n+b\n',
    ),
    section(
      'a/tests/test_app.py b/tests/test_app.py',
      'new file mode 100644\nindex 0..3\n--- /dev/null\n+++ b/tests/test_app.py\n@@ -0,0 +1 @@\n+x\n',
    ),
    section(
      'a/tests/old_test.py b/tests/old_test.py',
      'deleted file mode 100644\nindex 4..0\n--- a/tests/old_test.py\n+++ /dev/null\n@@ -1 +0,0 @@\n-y\n',
    ),
    section(
      'a/src/old.py b/src/test_new.py',
      'similarity index 100%\nrename from src/old.py\nrename to src/test_new.py\n',
    ),
    section(
      'a/assets/logo.png b/assets/logo.png',
      'index 5..6 100644\nGIT binary patch\nliteral 1\nIcmZo*\n\nliteral 0\nHcmV?d00001\n\n',
    ),
    section('a/test data/x b.py b/test data/x b.py', 'old mode 100644\nnew mode 100755\n'),
  ];
  const { codePatch, testPatch } = splitPatch(patch.join(''));
  expect(codePatch).toBe(patch[0] + patch[4] + patch[5]);
  expect(testPatch).toBe(patch[1] + patch[2] + patch[3]);
  expect(splitPatch('')).toEqual({ codePatch: '', testPatch: '' });
});
