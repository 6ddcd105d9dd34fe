import type { ConfiguredFetch } from '../../contract';
import { withoutOwnVersion } from './declarations';
import { pythonFetch, pythonFetchRevision } from './fetch';
import { BASE_PYTHON } from './versions';

/** Files the resolver reads as a package's metadata (its extras among them), not as a list of requirements. */
const PACKAGE_FILE = /(^|\/)(pyproject\.toml|setup\.py|setup\.cfg)$/;

/**
 * The fetch of a configured (or setup-agent) Python recipe: uv resolves exactly the files it names
 * (requirement files, a pyproject.toml, a setup.py; every extra of a package file) as of the date their
 * dependency declarations last changed, for the base image's Python (a configured recipe names no other), and pip downloads the wheels
 * into DEPS_MOUNT with DEPS_MOUNT/requirements.txt listing them, as for a detected project. The
 * recipe's setup installs them offline (`pip install --no-index --find-links /deps -r /deps/requirements.txt`).
 */
export function pythonConfiguredFetch(manifests: string[]): ConfiguredFetch<'python', 'pytest', 'python'> {
  return {
    fetch: pythonFetch({
      configured: {
        sources: manifests,
        extras: manifests.some((m) => PACKAGE_FILE.test(m)) ? 'all' : [],
        testExtras: [],
        groups: [],
      },
      buildRequires: [],
      testTooling: [],
      python: BASE_PYTHON,
      uvLock: false,
      prAdds: [],
      toolDeps: [],
    }),
    fetchRevision: pythonFetchRevision(BASE_PYTHON),
    dependencyText: withoutOwnVersion,
  };
}
