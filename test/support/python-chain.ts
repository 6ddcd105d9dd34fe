import type { Chain } from '../../src/schemas';
import { ChainRepo } from './chain-repo';

const PYPROJECT = `[build-system]
requires = ["setuptools>=61"]
build-backend = "setuptools.build_meta"

[project]
name = "shapes"
version = "0.1.0"
`;

const AREA = 'def square(side):\n    return side * side\n';
const TESTS = 'from shapes.area import square\n\n\ndef test_square():\n    assert square(3) == 9\n';

/**
 * A small installable Python package with a three-PR chain whose gold validation is known:
 * - #1 adds circle(): test_circle fails before and passes after (FAIL_TO_PASS), test_square passes
 *   throughout (PASS_TO_PASS), test_needs_network fails on the gold merge too (broken);
 * - #2 rewrites square() with a new test that passes before and after: no verifying test;
 * - #3 makes square() reject negative sides: test_square_rejects_negative_side is FAIL_TO_PASS.
 * The package is imported as `shapes` from the tests, so they need the environment's editable install.
 */
export async function pythonChain(path: string, name: string): Promise<{ repo: ChainRepo; chain: Chain }> {
  const repo = await ChainRepo.create(path, {
    'pyproject.toml': PYPROJECT,
    'shapes/__init__.py': '',
    'shapes/area.py': AREA,
    'tests/test_area.py': TESTS,
  });
  const circle = `${AREA}\n\ndef circle(radius):\n    return 3.14159 * radius * radius\n`;
  const pr1 = await repo.pr(1, 'Add the area of a circle', {
    'shapes/area.py': circle,
    'tests/test_area.py':
      // The module, not the name, is imported: at the base only test_circle fails, not the whole file.
      'from shapes import area\n\n\ndef test_square():\n    assert area.square(3) == 9\n\n\n' +
      'def test_circle():\n    assert round(area.circle(1), 2) == 3.14\n\n\n' +
      'def test_needs_network():\n    import socket\n    socket.create_connection(("192.0.2.1", 80), timeout=1)\n',
  });
  const squared = circle.replace('return side * side', 'return side ** 2');
  const pr2 = await repo.pr(2, 'Write square with a power', {
    'shapes/area.py': squared,
    'tests/test_square.py':
      'from shapes.area import square\n\n\ndef test_square_of_zero():\n    assert square(0) == 0\n',
  });
  const checked = squared.replace(
    'def square(side):\n',
    'def square(side):\n    if side < 0:\n        raise ValueError("a side cannot be negative")\n',
  );
  const pr3 = await repo.pr(3, 'Reject negative sides', {
    'shapes/area.py': checked,
    'tests/test_square.py':
      'import pytest\n\nfrom shapes.area import square\n\n\ndef test_square_of_zero():\n    assert square(0) == 0\n\n\n' +
      'def test_square_rejects_negative_side():\n    with pytest.raises(ValueError):\n        square(-1)\n',
  });
  return { repo, chain: repo.chain(name, [pr1, pr2, pr3]) };
}
