import { shellQuote } from '../../../process/shell-quote';
import { KEEP_BYTECODE } from './bytecode';
import { SESSION_EXIT } from './session-exit';

const NAME = 'chainsmith_pytest';
/** Each plugin's entry point name and its module's text: one module each. */
const PLUGINS: Record<string, string> = {
  chainsmith_session_exit: SESSION_EXIT,
  chainsmith_bytecode: KEEP_BYTECODE,
};

/**
 * Installs PLUGINS into the venv's site-packages as one distribution with a `pytest11` entry point
 * each, which pytest loads by itself: the test command stays the project's own (`python3 -m pytest …`),
 * the one agents are shown and trajectories keep.
 */
const INSTALL = `import os, sysconfig
site = sysconfig.get_paths()["purelib"]
info = os.path.join(site, "${NAME}-1.0.dist-info")
if not os.path.isdir(info):
    os.makedirs(info)
files = ${JSON.stringify(Object.fromEntries(Object.entries(PLUGINS).map(([name, text]) => [`_${name}.py`, text])))}
files["${NAME}-1.0.dist-info/METADATA"] = "Metadata-Version: 2.1\\nName: ${NAME}\\nVersion: 1.0\\nSummary: the pytest plugins of chainsmith's sandboxes\\n"
files["${NAME}-1.0.dist-info/entry_points.txt"] = ${JSON.stringify(
  `[pytest11]\n${Object.keys(PLUGINS)
    .map((name) => `${name} = _${name}\n`)
    .join('')}`,
)}
files["${NAME}-1.0.dist-info/INSTALLER"] = "chainsmith\\n"
files["${NAME}-1.0.dist-info/RECORD"] = "".join(f + ",,\\n" for f in sorted(files) + ["${NAME}-1.0.dist-info/RECORD"])
for name, text in files.items():
    with open(os.path.join(site, name), "w") as f:
        f.write(text)
`;

/** The setup line that puts the plugins into the venv whose interpreter is `python`. */
export function installPytestPlugins(python: string): string {
  return `${python} -c ${shellQuote(INSTALL)}`;
}
