/**
 * setup.py asks setuptools to convert Python 2 code with 2to3 as it builds (`use_2to3`, the one-source
 * way of 2010–2015), which setuptools 58 (2021) removed: the tree holds Python 2 code, and only a
 * Python 2 era toolchain, which this host lacks, would build and run it. Read in the resolver's output
 * (metadata built on the host) and in a build's (an install in the image).
 */
export function convertsPython2(output: string): string | undefined {
  return /use_2to3 is invalid/.test(output)
    ? "the project's setup.py converts its Python 2 code with 2to3 as it builds (use_2to3), which needs a Python 2 era toolchain this host does not have"
    : undefined;
}

/** A setup.py that asks for 2to3 as it builds: the setuptools of before 58 converts the package, a later one does not. */
export const convertsWith2to3 = (setupPy: string) => /\buse_2to3\b/.test(setupPy);
