import { shellQuote } from '../../../process/shell-quote';
import { SETUP_WARNING } from '../../contract';

/**
 * Installs what `pip install ARGS` installs, and then, for each distribution it added whose top-level
 * packages and modules all sit in the working tree (at its root or under src/), removes those copies
 * from site-packages and puts the tree's directory on the path instead (a .pth file): the project is
 * imported from the tree, as an editable install would have it, with its metadata (entry points, its
 * version) installed. Where the tree's layout is not the wheel's, the copy stays, and the build log
 * says so.
 */
const FROM_THE_TREE = `
import csv, os, shutil, subprocess, sys, sysconfig
site = sysconfig.get_paths()["purelib"]
infos = lambda: {d for d in os.listdir(site) if d.endswith(".dist-info")}
before = infos()
subprocess.check_call(sys.argv[1:])
for info in sorted(infos() - before):
    with open(os.path.join(site, info, "RECORD")) as record:
        tops = {row[0].split("/")[0] for row in csv.reader(record) if row and not row[0].startswith("..")}
    tops = {t for t in tops if not t.endswith((".dist-info", ".data", ".pth")) and t != "__pycache__"}
    root = next((r for r in ("src", ".") if tops and all(os.path.exists(os.path.join(r, t)) for t in tops)), None)
    if root is None:
        print("${SETUP_WARNING} " + info + " is installed as a copy: the tree does not hold its " + ", ".join(sorted(tops)))
        continue
    for t in tops:
        path = os.path.join(site, t)
        shutil.rmtree(path) if os.path.isdir(path) else os.remove(path)
    with open(os.path.join(site, "_chainsmith_tree_" + info.split("-")[0] + ".pth"), "w") as pth:
        pth.write(os.path.abspath(root) + "\\n")
    print("${SETUP_WARNING} the build backend makes no editable install (PEP 660): " + info + " is imported from " + os.path.abspath(root))
`;

/**
 * The project installed editable (`pip install -e .`, without build isolation or its dependencies);
 * where its build backend has no editable hook (PEP 660: flit_core before 3.4, poetry-core before
 * 1.0.8, early pdm), built as a wheel and imported from the tree all the same (FROM_THE_TREE).
 */
export function editableInstall(pip: string, python: string): string {
  const install = `${pip} --no-build-isolation --no-deps`;
  return `${install} -e . || ${python} -c ${shellQuote(FROM_THE_TREE)} ${install} .`;
}
