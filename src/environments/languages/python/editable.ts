import { shellQuote } from '../../../process/shell-quote';
import { TREE_PRODUCTS } from '../../../container/checkout';
import { SETUP_WARNING } from '../../contract';

/**
 * Installs what `pip install ARGS` installs, and then, for each distribution it installed (a RECORD
 * new or rewritten: a reinstall of the same version too) whose top-level packages and modules all sit
 * in the working tree (at its root or under src/), removes the files of those that its RECORD lists
 * (a namespace package's other portions stay) and puts the tree's directory on the path instead (a
 * .pth file): the project is imported from the tree, as an editable install would have it, with its
 * metadata (entry points, its version) installed. Where the tree's layout is not the wheel's, the
 * copy stays, and the build log says so.
 */
const FROM_THE_TREE = `
import csv, os, subprocess, sys, sysconfig
site = sysconfig.get_paths()["purelib"]
def records():
    found = {}
    for d in os.listdir(site):
        path = os.path.join(site, d, "RECORD")
        if d.endswith(".dist-info") and os.path.exists(path):
            found[d] = os.stat(path).st_mtime_ns
    return found
before = records()
code = subprocess.call(sys.argv[1:])
if code:
    sys.exit(code)
for info, stamp in sorted(records().items()):
    if before.get(info) == stamp:
        continue
    with open(os.path.join(site, info, "RECORD")) as record:
        own = [row[0] for row in csv.reader(record) if row and not row[0].startswith("..")]
    own = [f for f in own if not f.split("/")[0].endswith((".dist-info", ".data"))]
    tops = {f.split("/")[0] for f in own if f.split("/")[0] != "__pycache__" and not f.endswith(".pth")}
    root = next((r for r in ("src", ".") if tops and all(os.path.exists(os.path.join(r, t)) for t in tops)), None)
    if root is None:
        print("${SETUP_WARNING} " + info + " is installed as a copy: the tree does not hold its " + ", ".join(sorted(tops)))
        continue
    for f in own:
        if os.path.isfile(os.path.join(site, f)):
            os.remove(os.path.join(site, f))
    for t in tops:
        for d, _, _ in sorted(os.walk(os.path.join(site, t)), key=lambda w: -len(w[0])):
            if not os.listdir(d):
                os.rmdir(d)
    with open(os.path.join(site, "_chainsmith_tree_" + info.split("-")[0] + ".pth"), "w") as pth:
        pth.write(os.path.abspath(root) + "\\n")
    print("${SETUP_WARNING} the build backend makes no editable install (PEP 660): " + info + " is imported from " + os.path.abspath(root))
`;

/**
 * Before setuptools 64, pip's editable install is `setup.py develop`: an egg-link in site-packages
 * names the tree, and the project's metadata (its egg-info: version, entry points) is written into
 * the tree, which lives in the build's memory and which every sandbox checks out anew. A package
 * that reads its own version at import (pkg_resources, importlib.metadata) then fails in every test
 * run. The egg-info goes into site-packages, where both find it, beside the tree on the path.
 */
const KEEP_DEVELOP_METADATA = `
import glob, os, shutil, sysconfig
site = sysconfig.get_paths()["purelib"]
for link in glob.glob(os.path.join(site, "*.egg-link")):
    with open(link) as f:
        tree = f.readline().strip()
    for info in glob.glob(os.path.join(tree, "*.egg-info")):
        if not os.path.exists(os.path.join(site, os.path.basename(info))):
            shutil.copytree(info, os.path.join(site, os.path.basename(info)))
            print("${SETUP_WARNING} setup.py develop wrote " + info + " into the tree, which sandboxes check out anew: kept in " + site)
`;

/**
 * The files the install wrote into the tree that git ignores, kept in TREE_PRODUCTS for every sandbox's
 * checkout (checkout.ts): setuptools_scm's `write_to` version module (filelock's `from .version import
 * version` failed at import in every run without it), an extension `setup.py develop` compiled in place.
 * Metadata, bytecode and build folders are left: kept otherwise (KEEP_DEVELOP_METADATA), or remade.
 */
const KEEP_TREE_PRODUCTS =
  `mkdir -p ${TREE_PRODUCTS} && git ls-files -z --others --ignored --exclude-standard | ` +
  `{ grep -zvE '(^|/)(__pycache__|build|dist|\\.eggs|\\.tox|\\.nox|[^/]*\\.egg-info)(/|$)|\\.py[co]$' || true; } | ` +
  `xargs -0 -r cp -a --parents -t ${TREE_PRODUCTS}`;

/** Where the build writes FROM_THE_TREE: the install line names it, so a failing one stays short in a stage's reason. */
const FROM_THE_TREE_FILE = '/tmp/chainsmith-from-tree.py';

/**
 * The project installed editable (`pip install -e .`, without build isolation or its dependencies);
 * where its build backend has no editable hook (PEP 660: flit_core before 3.4, poetry-core before
 * 1.0.8, early pdm), built as a wheel and imported from the tree all the same (FROM_THE_TREE). The pip
 * is the venv's, which may be one the requirements pin (a build backend of 2020 imports pip's own
 * modules, pdm 0.x pip 20's): before pip 10, which knows no --no-build-isolation, there is no build
 * isolation to turn off (a dependency of 2018 can pin pip 9). Setup lines of one build script: the
 * program and the flag are set apart, and the install line, which a failed build's reason names,
 * fits its bound (REASON_LIMITS.command). A `setup.py develop`'s metadata is kept (KEEP_DEVELOP_METADATA).
 *
 * `backend`: pyproject.toml's build-backend. One that is not setuptools' and has no editable hook goes
 * to the wheel at once: pip would otherwise fall back to `setup.py develop` wherever a setup.cfg is there
 * (for flake8's settings, say), and install an empty `UNKNOWN` distribution instead of the project.
 */
export function editableInstall(pip: string, python: string, backend?: string): string[] {
  const install = `${pip} $isolation --no-deps`;
  const backendModule = backend?.split(':')[0].trim();
  const hook =
    backendModule && !/^setuptools\b/.test(backendModule)
      ? `${python} -c ${shellQuote(`import importlib, sys; sys.exit(0 if hasattr(importlib.import_module("${backendModule}"), "build_editable") else 1)`)} && `
      : '';
  return [
    `printf '%s' ${shellQuote(FROM_THE_TREE)} > ${FROM_THE_TREE_FILE}`,
    `isolation=$(${python} -m pip install --help 2>/dev/null | grep -o -m1 -- --no-build-isolation || true)`,
    `${hook}${install} -e . || ${python} ${FROM_THE_TREE_FILE} ${install} .`,
    `${python} -c ${shellQuote(KEEP_DEVELOP_METADATA)} || true`,
    KEEP_TREE_PRODUCTS,
  ];
}
