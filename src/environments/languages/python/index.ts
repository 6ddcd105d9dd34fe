import type { LanguageSupport } from '../../contract';
import { pythonConfiguredFetch } from './configured-fetch';
import { detectPython } from './detect';
import { hostPythons, prefixFingerprint } from './host-pythons';
import { PYTEST, pytestRunner } from './pytest';
import { testedPythons } from './tested-pythons';

/** What Python reads from the config's environments section. */
export interface PythonSettings {
  /** CPython prefixes (absolute) a project may get besides pyenv's versions and the base image's 3.11 (environments.pythons). */
  pythons?: string[];
}

/**
 * Python: a venv on the Python of the stage's era with its dependencies fetched on the host (detect.ts,
 * fetch.ts), run with pytest. Its toolchain is the base image, and a Python other than the image's is
 * a host CPython copied into it (images/host-python).
 */
export const python: LanguageSupport<'python', 'pytest', 'python', PythonSettings> = {
  name: 'python',
  title: 'Python',
  layouts: ['pyproject.toml', 'setup.py', 'setup.cfg', 'requirements*.txt'],
  // The host's Pythons are looked up once per process (host-pythons.ts); the base's CI files only for a Python project.
  detect: async (files, ctx) =>
    detectPython(files, ctx.merged, {
      provided: await hostPythons(ctx.settings.pythons),
      baseDate: ctx.baseDate,
      ...(ctx.repo ? { tested: () => testedPythons(ctx.repo!.path, ctx.repo!.sha) } : {}),
    }),
  resolveConfigured: pythonConfiguredFetch,
  runners: { pytest: pytestRunner },
  toolchains: { python: 'python3 --version' },
  files: { tests: [/^test_.*\.py$/, /_test\.py$/], code: ['py', 'pyx', 'pyi'] },
  hostToolchain: {
    recipe: 'host-python',
    fingerprint: prefixFingerprint,
    unrunnable: /lacks libraries|does not run in the image/,
  },
  base: { toolchain: 'python', testCommand: PYTEST },
};
