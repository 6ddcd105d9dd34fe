/**
 * File contents of the demo Python package "tally" at each point of its history. Functions are
 * composed from pieces so that every version of a file is written out once and the diffs between
 * versions stay as small as a real PR's would be.
 */

export type MedianVersion = 'none' | 'buggy' | 'fixed' | 'keyed';

export interface TallyState {
  median: MedianVersion;
  variance: boolean;
}

const MEAN = `def mean(values):
    """Arithmetic mean of a non-empty sequence."""
    if not values:
        raise ValueError("mean() of an empty sequence")
    return sum(values) / len(values)
`;

// The bug PR #4 fixes: for even lengths this is the upper of the two middle values.
const MEDIAN_BUGGY = `def median(values):
    """Middle value of a non-empty sequence."""
    if not values:
        raise ValueError("median() of an empty sequence")
    ordered = sorted(values)
    return ordered[len(ordered) // 2]
`;

const MEDIAN_FIXED = `def median(values):
    """Middle value of a non-empty sequence.

    For an even number of values this is the mean of the two middle ones.
    """
    if not values:
        raise ValueError("median() of an empty sequence")
    ordered = sorted(values)
    middle = len(ordered) // 2
    if len(ordered) % 2 == 1:
        return ordered[middle]
    return (ordered[middle - 1] + ordered[middle]) / 2
`;

const MEDIAN_KEYED = `def median(values, key=None):
    """Middle value of a non-empty sequence.

    For an even number of values this is the mean of the two middle ones.
    If key is given, it maps each item to the number whose median is taken.
    """
    if not values:
        raise ValueError("median() of an empty sequence")
    if key is not None:
        values = [key(value) for value in values]
    ordered = sorted(values)
    middle = len(ordered) // 2
    if len(ordered) % 2 == 1:
        return ordered[middle]
    return (ordered[middle - 1] + ordered[middle]) / 2
`;

const VARIANCE = `def variance(values):
    """Population variance of a non-empty sequence."""
    if not values:
        raise ValueError("variance() of an empty sequence")
    centre = mean(values)
    return sum((value - centre) ** 2 for value in values) / len(values)
`;

const MEDIANS: Record<MedianVersion, string | undefined> = {
  none: undefined,
  buggy: MEDIAN_BUGGY,
  fixed: MEDIAN_FIXED,
  keyed: MEDIAN_KEYED,
};

function exportedNames(state: TallyState): string[] {
  return ['mean', ...(state.median === 'none' ? [] : ['median']), ...(state.variance ? ['variance'] : [])];
}

export function statsPy(state: TallyState): string {
  // variance goes last, away from median, so PR #5 and the median PRs touch different lines.
  const functions = [MEAN, MEDIANS[state.median], state.variance ? VARIANCE : undefined].filter(
    (part): part is string => part !== undefined,
  );
  return `"""Small descriptive statistics for plain Python sequences."""\n\n\n${functions.join('\n\n')}`;
}

export function initPy(state: TallyState): string {
  const names = exportedNames(state);
  return `"""tally: small descriptive statistics."""

from tally.stats import ${names.join(', ')}

__all__ = [${names.map((name) => `"${name}"`).join(', ')}]
`;
}

export const TEST_STATS = `import pytest

from tally.stats import mean


def test_mean_of_integers():
    assert mean([1, 2, 3, 4]) == 2.5


def test_mean_rejects_empty_input():
    with pytest.raises(ValueError):
        mean([])
`;

// PR #2's tests: odd lengths only, which is why they pass with the buggy median.
const TEST_MEDIAN_ODD = `import pytest

from tally.stats import median


def test_median_of_odd_length_list():
    assert median([3, 1, 2]) == 2


def test_median_of_single_value():
    assert median([7]) == 7


def test_median_rejects_empty_input():
    with pytest.raises(ValueError):
        median([])
`;

const TEST_MEDIAN_EVEN = `

def test_median_of_even_length_list_averages_middle_pair():
    assert median([4, 1, 3, 2]) == 2.5
`;

const TEST_MEDIAN_KEY = `

def test_median_with_key_function():
    people = [{"age": 41}, {"age": 29}, {"age": 35}, {"age": 30}]
    assert median(people, key=lambda person: person["age"]) == 32.5
`;

export function testMedianPy(median: Exclude<MedianVersion, 'none'>): string {
  if (median === 'buggy') return TEST_MEDIAN_ODD;
  if (median === 'fixed') return TEST_MEDIAN_ODD + TEST_MEDIAN_EVEN;
  return TEST_MEDIAN_ODD + TEST_MEDIAN_EVEN + TEST_MEDIAN_KEY;
}

export const TEST_VARIANCE = `import pytest

from tally.stats import variance


def test_variance_of_integers():
    assert variance([2, 4, 4, 4, 5, 5, 7, 9]) == 4


def test_variance_rejects_empty_input():
    with pytest.raises(ValueError):
        variance([])
`;

export const PYPROJECT = `[build-system]
requires = ["setuptools>=61"]
build-backend = "setuptools.build_meta"

[project]
name = "tally"
version = "0.1.0"
description = "Small descriptive statistics for plain Python sequences."
requires-python = ">=3.8"

[project.optional-dependencies]
test = ["pytest>=7"]

[tool.pytest.ini_options]
testpaths = ["tests"]
pythonpath = ["."]
`;

export const GITIGNORE = `__pycache__/
.pytest_cache/
*.egg-info/
`;

const README_INTRO = `# tally

Small descriptive statistics for plain Python sequences.

\`\`\`python
from tally.stats import mean

mean([1, 2, 3])  # 2.0
\`\`\`
`;

const README_INSTALL = `
## Installation

From a checkout of this repository:

    python3 -m pip install .

Add the test extra to get pytest as well:

    python3 -m pip install ".[test]"
`;

const README_TESTS = `
## Running the tests

    python3 -m pytest
`;

export function readme(withInstallation: boolean): string {
  return README_INTRO + (withInstallation ? README_INSTALL : '') + README_TESTS;
}
