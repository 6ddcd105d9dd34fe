import { shellQuote } from '../../../process/shell-quote';

/** Seconds a run may go on past pytest's session before it is ended, while a thread it left blocked holds it. */
const GRACE_SECONDS = 10;

/**
 * A pytest plugin that ends the process with pytest's exit status once its session is over, where a
 * thread a test left blocked would hold it. Python waits for every non-daemon thread at exit: a test
 * that starts a writer on a FIFO the code before a fix never opens leaves one waiting for good, and the
 * run, its report printed whole, went on to its time limit (600 s a run, a stage `timeout`). Only the
 * outermost session counts (pytest's own tests run sessions inside one), only where such a thread is
 * alive at its end, and only after a grace in which the interpreter may still exit by itself; a
 * pytest-xdist worker is left to its controller.
 */
const PLUGIN = `import os, sys, threading, time
_outer = []
_session = []
def pytest_configure(config):
    if not _outer:
        _outer.append(config)
def pytest_sessionfinish(session):
    if _outer and session.config is _outer[0]:
        _session.append(session)
def pytest_unconfigure(config):
    if not _session or config is not _outer[0] or hasattr(config, "workerinput") or hasattr(config, "slaveinput"):
        return
    me = threading.current_thread()
    if not [t for t in threading.enumerate() if t is not me and t.is_alive() and not t.daemon]:
        return
    status = int(_session[0].exitstatus)
    def end():
        time.sleep(${GRACE_SECONDS})
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:
                pass
        os._exit(status)
    watch = threading.Thread(target=end, name="chainsmith-session-exit")
    watch.daemon = True
    watch.start()
`;

const NAME = 'chainsmith_session_exit';

/**
 * Installs PLUGIN into the venv's site-packages as a distribution with a `pytest11` entry point, which
 * pytest loads by itself: the test command stays the project's own (`python3 -m pytest …`), the one
 * agents are shown and trajectories keep.
 */
const INSTALL = `import os, sysconfig
site = sysconfig.get_paths()["purelib"]
info = os.path.join(site, "${NAME}-1.0.dist-info")
if not os.path.isdir(info):
    os.makedirs(info)
files = {
    "_${NAME}.py": ${JSON.stringify(PLUGIN)},
    "${NAME}-1.0.dist-info/METADATA": "Metadata-Version: 2.1\\nName: ${NAME}\\nVersion: 1.0\\nSummary: ends a pytest run with its session where a thread a test left blocked holds the interpreter\\n",
    "${NAME}-1.0.dist-info/entry_points.txt": "[pytest11]\\n${NAME} = _${NAME}\\n",
    "${NAME}-1.0.dist-info/INSTALLER": "chainsmith\\n",
}
files["${NAME}-1.0.dist-info/RECORD"] = "".join(f + ",,\\n" for f in sorted(files) + ["${NAME}-1.0.dist-info/RECORD"])
for name, text in files.items():
    with open(os.path.join(site, name), "w") as f:
        f.write(text)
`;

/** The setup line that puts the session-exit plugin into the venv whose interpreter is `python`. */
export function installSessionExit(python: string): string {
  return `${python} -c ${shellQuote(INSTALL)}`;
}
