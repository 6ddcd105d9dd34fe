import { REPO_DIR } from '../../../container/sandbox';

/**
 * A pytest plugin (installed with the others, pytest-plugins.ts) that lets a pytest run in the
 * sandbox's repository write what it compiles there: sandboxes write no bytecode
 * (docker-container.ts), so each of a gold validation's three to five runs compiled every module of
 * the project and its tests (and pytest rewrote each test module) anew.
 *
 * Before it lets the run write, it drops each compiled module of the tree (`__pycache__/m.cpython-38.pyc`,
 * pytest's `m.cpython-38-pytest-7.4.0.pyc`, Python 2's `m.pyc` beside its source) that was not written
 * after its source's last change, or whose source is gone: what stays was compiled from the source as
 * it is now. Python checks a compiled module against its source's modification time in whole seconds
 * and its size (Python 2 the time alone): a checkout that rewrites a file within the second of its
 * last write, with as many bytes, goes unseen. Python 2 imports a compiled module whose source is gone.
 *
 * Nothing is written or dropped where the repository tracks a compiled module (a write would change
 * the tree), where git cannot say, or where the run is outside the repository. The tree's git ignores
 * what is written (checkout.ts): no patch holds it. The plugin runs at import, before pytest imports
 * the project's conftest files. It runs on Python 2.7 too.
 */
export const KEEP_BYTECODE = `import os, subprocess, sys
_REPO = "${REPO_DIR}"
def _mtime(path):
    s = os.stat(path)
    return getattr(s, "st_mtime_ns", s.st_mtime)
def _sweep():
    for d, dirs, files in os.walk(_REPO):
        dirs[:] = [x for x in dirs if x != ".git"]
        for f in files:
            if not f.endswith((".pyc", ".pyo")):
                continue
            p = os.path.join(d, f)
            if os.path.basename(d) == "__pycache__":
                source = os.path.join(os.path.dirname(d), f.split(".")[0] + ".py")
            else:
                source = p[:-1]
            try:
                if _mtime(source) < _mtime(p):
                    continue
            except OSError:
                pass
            try:
                os.remove(p)
            except OSError:
                pass
def _start():
    here = os.path.realpath(os.getcwd())
    if here != _REPO and not here.startswith(_REPO + os.sep):
        return
    try:
        with open(os.devnull, "w") as null:
            tracked = subprocess.check_output(["git", "ls-files", "--", "*.pyc", "*.pyo"], cwd=_REPO, stderr=null)
    except Exception:
        return
    if tracked.strip():
        return
    _sweep()
    sys.dont_write_bytecode = False
_start()
`;
