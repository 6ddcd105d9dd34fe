/** Seconds a run may go on past pytest's session before it is ended, while a thread it left blocked holds it. */
const GRACE_SECONDS = 10;

/**
 * A pytest plugin (installed with the others, pytest-plugins.ts) for two ways a run outlives its
 * tests, each of which held a run to its time limit (600 s) and cost it its per-test report, and for
 * an old pytest's report:
 * - Its session is over, but Python waits at exit for every non-daemon thread and multiprocessing
 *   child: a test that starts a writer on a FIFO the code before a fix never opens, or a server
 *   process it never stops, leaves one waiting for good. Where such a thread or child is alive at the
 *   session's end, the process ends with pytest's exit status after a grace in which it may still
 *   exit by itself, the children killed first.
 * - A test hangs (a client waiting on a server the code before the fix never starts): the run's limit
 *   sends SIGTERM (timeout(1), to the whole process group) and pytest printed no summary. The tests
 *   reported so far are then written as its short summary writes them (ids as it shows them), the
 *   one under way as failed, on the stdout pytest started with (a test's own output is captured), and
 *   the process ends by the signal.
 * And pytest before 2.9 (2016) knows no `-rp`: it writes failures alone, so a run where every test
 * passed reported none; the passed tests are written as later versions write them.
 * Only the outermost session counts (pytest's own tests run sessions inside one, and its tests' reports
 * are read by an object registered with it alone); a pytest-xdist worker is left to its controller,
 * which reads the workers' reports; a forked child keeps the default.
 */
export const SESSION_EXIT = `import os, signal, sys, threading, time
_pid = os.getpid()
try:
    _stdout = os.dup(1)
except OSError:
    _stdout = None
_outer = []
_session = []
_seen = {}
_running = []
def _worker(config):
    return hasattr(config, "workerinput") or hasattr(config, "slaveinput")
def _shown(nodeid):
    return getattr(_outer[0], "cwd_relative_nodeid", lambda n: n)(nodeid)
class _Outermost(object):
    def pytest_runtest_logstart(self, nodeid):
        _running[:] = [nodeid]
    def pytest_runtest_logreport(self, report):
        if report.when == "call":
            if hasattr(report, "wasxfail"):
                word = "XFAIL" if report.skipped else "XPASS"
            else:
                word = {"passed": "PASSED", "failed": "FAILED"}.get(report.outcome)
        else:
            word = "ERROR" if report.failed else None
        if word and (word in ("FAILED", "ERROR") or report.nodeid not in _seen):
            _seen[report.nodeid] = word
        if report.when == "teardown":
            _running[:] = []
    def pytest_terminal_summary(self, terminalreporter):
        import pytest
        try:
            old = tuple(int(part) for part in pytest.__version__.split(".")[:2]) < (2, 9)
        except ValueError:
            old = False
        if old and "p" in getattr(terminalreporter, "reportchars", ""):
            for nodeid, word in _seen.items():
                if word == "PASSED":
                    terminalreporter.write_line("PASSED " + _shown(nodeid))
    def pytest_sessionfinish(self, session):
        _session.append(session)
def pytest_configure(config):
    if _outer or _worker(config):
        return
    _outer.append(config)
    config.pluginmanager.register(_Outermost(), "chainsmith-outermost-session")
    if _stdout is not None:
        try:
            signal.signal(signal.SIGTERM, _at_limit)
        except ValueError:
            pass
def _at_limit(signum, frame):
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if os.getpid() == _pid and not _session:
        lines = [word + " " + _shown(nodeid) for nodeid, word in _seen.items()]
        lines += ["FAILED " + _shown(nodeid) + " - the run's time limit ended it while it ran" for nodeid in _running if _seen.get(nodeid) not in ("FAILED", "ERROR")]
        text = "\\n=== the run's time limit ended pytest: the tests it had reported ===\\n" + "\\n".join(lines) + "\\n"
        try:
            os.write(_stdout, text.encode("utf-8", "replace"))
        except OSError:
            pass
    os.kill(os.getpid(), signal.SIGTERM)
def _children():
    mp = sys.modules.get("multiprocessing")
    try:
        return [c for c in mp.active_children() if not c.daemon] if mp else []
    except Exception:
        return []
def pytest_unconfigure(config):
    if not _session or config is not _outer[0]:
        return
    me = threading.current_thread()
    if not [t for t in threading.enumerate() if t is not me and t.is_alive() and not t.daemon] and not _children():
        return
    status = int(_session[0].exitstatus)
    def end():
        time.sleep(${GRACE_SECONDS})
        for child in _children():
            try:
                os.kill(child.pid, signal.SIGKILL)
            except OSError:
                pass
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
