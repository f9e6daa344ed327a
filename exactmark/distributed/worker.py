"""Mark one: a worker turns a job into a result, the same on every engine.

    python -m exactmark.distributed.worker --kit KIT.tar.gz [--cache DIR] [--allow-fallback]
                                           [--host-margin PCT]  < JOB.tar.gz > RESULT.tar.gz
    exactmark mark-one --share K/N DIR [--cache DIR] [--allow-fallback] [--host-margin PCT]

The kit (exactmark.distributed.shipment) is unpacked once per host into the cache, under its
digest; the marker runs from it (its folder the working folder and PYTHONPATH, as
Gradescope's run has it), so a host needs Python and the marker's libraries, no kit
installed. Before its first student the worker checks what would make it mark otherwise
than the coordinator: the kit, Python, bubblewrap, the layers the assignment requires, the
assignment's fingerprint, the fallback sandbox, and with a host margin the reference's CPU
time; it refuses with one sentence naming its host (exit status 3, nothing on stdout).
Those facts are cached per host, kit and assignment, in the process and in a file under a
lock, so that calibrating happens once.

The worker writes nothing shared: its scratch is its own and goes; the result goes to
stdout (or, with --share, DIR/results/NAME.tar.gz under a temporary name, then renamed).
It watches the process that started it: when that dies (a killed dask worker, a dropped
ssh) it stops its marker (SIGINT, then SIGKILL) within seconds.
"""

import argparse
import fcntl
import hashlib
import importlib.util
import json
import os
import platform
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from exactmark.base import from_make, messages
from exactmark.base.archives import unpack
from exactmark.base.tree import Limits, Refused, remove_tree
from exactmark.base.visible import escaped
from exactmark.marking.request import MarkRequest
from exactmark.distributed import jobs
from exactmark.distributed.shipment import KIT_FILE, KIT_NAME, write_atomically

try:  # it needs the marker's libraries: a host without them refuses in a sentence (missing)
    from exactmark.distributed import identity
except ModuleNotFoundError as problem:
    if (problem.name or "").split(".")[0] == "exactmark":
        raise

REFUSED_STATUS = 3  # the worker refuses: its sentence on stderr, nothing on stdout
FAILED_STATUS = 4  # the worker itself failed (an engine marks the job elsewhere)
STOP_SECONDS = 30  # after SIGINT, for a marker to stop its runs, before SIGKILL
PARENT_GONE_SECONDS = 5  # the same, once the worker's parent has gone
PARENT_POLL_SECONDS = 1
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
SAID_MOST = 300  # characters of the marker's stderr a result keeps
FACTS_SECONDS = 3600  # for the facts (and a calibration) to come
KIT_LIMITS = Limits(files=100_000, depth=40, bytes=4 << 30)
# The marker's libraries, as exactmark.cli's MARK_LIBRARIES (a test holds them equal).
LIBRARIES = ("jsonschema", "pexpect",
             *(("pyseccomp",) if sys.platform.startswith("linux") else ()),
             *(("tomli",) if sys.version_info < (3, 11) else ()))
SHARE = re.compile(r"([1-9][0-9]*)/([1-9][0-9]*)")

REFUSED = "worker {host} refused: {why}"
KIT_DIFFERS = ("its kit is at commit {there} (digest {there_digest}), the coordinator's at "
               "{here} (digest {here_digest}): install the coordinator's kit there")
PYTHON_DIFFERS = "Python {there} there, {here} here"
BWRAP_DIFFERS = "bubblewrap {there} there, {here} here"
LAYER_MISSING = "it cannot give each run {layer}, which this marking requires"
FALLBACK_REFUSED = ("it would mark in the fallback sandbox ({layer}); give --allow-fallback to "
                    "let it")
NO_SANDBOX = "it cannot make a sandbox: {why}"
FINGERPRINT_DIFFERS = ("its assignment {name} is not the coordinator's (fingerprint {there}, "
                       "the coordinator's {here}): send it the coordinator's kit")
CPU_DIFFERS = ("the reference's cases took {there:.2f} s of CPU there, {here:.2f} s here "
               "({differs:.0f}% {way}, --host-margin {margin:.0f}%)")
LIBRARIES_MISSING = ("it lacks {names} for {python}: {python} -m pip install {names}")
NO_FACTS = "it could not read its own kit: {said}"
BAD_KIT = "{kit}: not a worker kit (named kit-SHA256.tar.gz, its bytes that digest): {problem}"
BAD_SHARE = "--share K/N: K from 1 to N, such as 2/8"
BAD_PERCENTAGE = "a percentage, 0 or more, such as 25"
NO_KIT_IN = "{folder}: holds {count} worker kits (kit-*.tar.gz), not one"
MARKED_SHARE = ("mark-one: share {share}: {done} marked, {kept} already had a result, {failed} "
                "failed, of {total}")
JOB_FAILED = "mark-one: {job}: failed, the share's other jobs marked: {problem}"
NO_PLAN = "{folder}: no plan here (no jobs/ folder): give the folder exactmark class --plan-only wrote"
DIGEST_SHOWN = 12  # hex digits of a digest a sentence shows
FAILED = "mark-one: failed: {problem}"
NEITHER = "give --kit (a job on stdin) or --share K/N DIR"
DESCRIPTION = """Mark jobs of a class run planned elsewhere (exactmark class --plan-only DIR), as a
worker: with --kit, the job on stdin and its result on stdout; with --share K/N DIR, the
K-th of N shares of DIR/jobs, each result into DIR/results (a job with one is skipped).
The worker unpacks the kit once into its cache and marks from it, after checking that it
would mark as the coordinator does (the kit, Python, bubblewrap, the layers the assignment
requires, the assignment, the fallback sandbox, and with --host-margin the reference's CPU
time): else it refuses with one sentence, exit status 3."""
EXAMPLE = "example: exactmark mark-one --share 1/8 plan --allow-fallback"


class WorkerRefused(Exception):
    """The worker would mark otherwise than the coordinator: str is the one sentence the
    coordinator shows, naming the host."""


class Stopped(Exception):
    """The marking was stopped (Ctrl-C on the coordinator, the worker's parent gone)."""


def unpack_kit(archive: Path, cache: Path) -> Path:
    """The kit archive unpacked once into cache/kit-<digest>/ (a temporary folder, then
    renamed; safe against its own entries: no absolute path, no '..', no link), reused
    after. ValueError when its name is not the digest of its bytes."""
    match = re.fullmatch(KIT_NAME.format(digest="([0-9a-f]{64})").replace(".", r"\."),
                         archive.name)
    if match is None:
        raise ValueError(BAD_KIT.format(kit=archive, problem="its name"))
    into = cache / f"kit-{match.group(1)}"
    if (into / KIT_FILE).is_file():
        return into
    digest = hashlib.sha256()
    with open(archive, "rb") as file:
        for chunk in iter(lambda: file.read(1 << 20), b""):
            digest.update(chunk)
    if digest.hexdigest() != match.group(1):
        raise ValueError(BAD_KIT.format(kit=archive, problem="its bytes"))
    cache.mkdir(mode=0o700, parents=True, exist_ok=True)
    temporary = Path(tempfile.mkdtemp(prefix=".kit-", dir=cache))
    try:
        unpack(archive, temporary / "kit", KIT_LIMITS)
        try:
            os.rename(temporary / "kit", into)
        except OSError:
            if not (into / KIT_FILE).is_file():  # another worker's is there: it will do
                raise
    except Refused as problem:
        raise ValueError(BAD_KIT.format(kit=archive, problem=problem)) from None
    finally:
        remove_tree(temporary)
    return into


def kit_environment(kit: Path) -> dict:
    """The environment of a process that runs from the kit at `kit`."""
    return {**os.environ, "PYTHONPATH": str(kit)}


def assignment_in(kit: Path) -> Path:
    with open(kit / KIT_FILE, "rb") as file:
        return kit / json.loads(file.read(jobs.JSON_MOST))["assignment"]


_facts = {}  # (kit, isolation, calibrate) -> the kit's facts, for this process
_facts_lock = threading.Lock()


def facts(kit: Path, isolation: str, calibrate: bool, cache: Path) -> dict:
    """identity.facts_of for the kit at `kit`, as its own code says them: once per process,
    and once per host in cache/facts-*.json under a lock (a calibration is minutes)."""
    key = (str(kit), isolation, calibrate)
    with _facts_lock:
        if key in _facts:
            return _facts[key]
        # The file's name says what would change the facts: a Python or a bubblewrap
        # upgraded since makes new ones.
        name = hashlib.sha256(json.dumps([*key, sys.executable, platform.python_version(),
                                          identity.bwrap_version()]).encode()).hexdigest()[:32]
        cache.mkdir(mode=0o700, parents=True, exist_ok=True)
        with open(cache / f"facts-{name}.lock", "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            path = cache / f"facts-{name}.json"
            try:
                found = jobs.read_json(path, "{problem}")
            except jobs.FormatError:
                command = [sys.executable, "-m", identity.__name__, "--assignment",
                           str(assignment_in(kit)), *(["--isolation", isolation] if isolation
                                                      else []),
                           *(["--calibrate"] if calibrate else [])]
                done = subprocess.run(command, cwd=kit, env=kit_environment(kit),
                                      stdin=subprocess.DEVNULL, capture_output=True,
                                      timeout=FACTS_SECONDS)
                try:
                    found = json.loads(done.stdout[:jobs.JSON_MOST])
                except ValueError:
                    raise WorkerRefused(REFUSED.format(
                        host=socket.gethostname(), why=NO_FACTS.format(said=escaped(
                            " ".join(done.stderr.decode("utf-8", "replace").split())[-SAID_MOST:]))))
                write_atomically(path, json.dumps(found).encode())
        _facts[key] = found
        return found


def missing() -> None:
    """WorkerRefused where this Python lacks a library of the marker's (LIBRARIES)."""
    lacking = [name for name in LIBRARIES if importlib.util.find_spec(name) is None]
    if lacking:
        raise WorkerRefused(REFUSED.format(host=socket.gethostname(), why=LIBRARIES_MISSING.format(
            names=" ".join(lacking), python=sys.executable)))


def on_the_coordinators_machine(job: dict) -> bool:
    """Whether this worker runs where the coordinator timed the reference (dask-local, a
    parallel ':' slot): the same CPU, whose two timings would differ only by the load."""
    return job.get("machine") == identity.machine_id()


def check(job: dict, found: dict, allow_fallback: bool, host_margin: float) -> None:
    """WorkerRefused with its sentence where this host, its kit or its assignment differ
    from what the job says of the coordinator's."""
    host = found["host"]

    def refuse(why: str):
        raise WorkerRefused(REFUSED.format(host=host["host"], why=why))
    for kit in (identity.kit_identity(), found["kit"]):  # this worker's code, and the kit's
        commits = {kit["commit"], job["kit"]["commit"]} - {identity.UNKNOWN}
        if kit["digest"] != job["kit"]["digest"] or len(commits) > 1:
            refuse(KIT_DIFFERS.format(there=kit["commit"][:7], here=job["kit"]["commit"][:7],
                                      there_digest=kit["digest"][:DIGEST_SHOWN],
                                      here_digest=job["kit"]["digest"][:DIGEST_SHOWN]))
    if host["python"] != job["python"]:
        refuse(PYTHON_DIFFERS.format(there=host["python"], here=job["python"]))
    if host["bwrap"] != job["bwrap"]:
        refuse(BWRAP_DIFFERS.format(there=host["bwrap"], here=job["bwrap"]))
    if host["sandbox"]:
        refuse(NO_SANDBOX.format(why=host["sandbox"]))
    for layer in job["options"]["require"]:
        if not host["has"].get(layer):
            refuse(LAYER_MISSING.format(layer=layer))
    if host["fallback"] and not allow_fallback:
        refuse(FALLBACK_REFUSED.format(layer=host["layers"][0] if host["layers"] else ""))
    if found["fingerprint"] != job["fingerprint"]:
        refuse(FINGERPRINT_DIFFERS.format(name=Path(job["assignment"]).stem,
                                          there=found["fingerprint"][:DIGEST_SHOWN],
                                          here=job["fingerprint"][:DIGEST_SHOWN]))
    here, there = job.get("reference_cpu"), found.get("cpu_seconds")
    if host_margin is not None and here and there is not None \
            and not on_the_coordinators_machine(job) \
            and abs(there - here) > host_margin * here:
        refuse(CPU_DIFFERS.format(there=there, here=here, differs=abs(there - here) / here * 100,
                                  way="more" if there > here else "less",
                                  margin=host_margin * 100))


def mark_job(job: bytes, kit: Path, allow_fallback: bool = False, host_margin: float = None,
             on_message=None, stop: threading.Event = None, cache: Path = None,
             grace: float = STOP_SECONDS) -> bytes:
    """Mark one job with the unpacked kit at `kit`; the result archive's bytes. The checks
    first (WorkerRefused), on the facts cached in `cache` (default: beside the kit).
    on_message(record): the marker's messages as they come. `stop` set: the marker gets
    SIGINT, then SIGKILL `grace` seconds later, and Stopped is raised."""
    missing()
    scratch = Path(tempfile.mkdtemp(prefix="mark-one-"))
    try:
        archive = scratch / "job.tar.gz"
        archive.write_bytes(job)
        asked = jobs.read_job(archive, scratch / "job")
        calibrate = host_margin is not None and asked.get("reference_cpu") is not None \
            and not on_the_coordinators_machine(asked)
        found = facts(kit, asked["options"]["isolation"], calibrate, cache or kit.parent)
        check(asked, found, allow_fallback, host_margin)
        return jobs.result_bytes(*run_marker(asked, scratch, kit, found, on_message, stop,
                                             grace))
    finally:
        remove_tree(scratch)


def run_marker(job: dict, scratch: Path, kit: Path, found: dict, on_message, stop,
               grace: float) -> tuple:
    """(result, marked, report): the marker run from the kit on the job's submission."""
    folder = scratch / "job"
    options, student = job["options"], job["student"]
    earlier = folder / jobs.EARLIER
    marked, report = scratch / jobs.MARKED, scratch / jobs.REPORT
    asked = MarkRequest(str(assignment_in(kit)), str(folder / jobs.SUBMISSION), json=str(marked),
                        jobs=1, markers=options["markers"], isolation=options["isolation"],
                        sandbox_per=options["sandbox_per"], require=tuple(options["require"]),
                        student_budget=options["student_budget"],
                        reuse=str(earlier) if earlier.is_file() else None, **student)
    reading, writing = os.pipe()
    command, environment = asked.hidden(kit_environment(kit))
    environment[messages.MESSAGES_FD] = str(writing)
    started = time.monotonic()
    progress, notices, refusal, disk_full = 0, [], None, False
    with open(report, "wb") as stdout, tempfile.TemporaryFile() as stderr, \
            os.fdopen(reading, "rb") as pipe:
        try:
            process = subprocess.Popen(command, cwd=kit, stdin=subprocess.DEVNULL, stdout=stdout,
                                       stderr=stderr, env=environment, pass_fds=(writing,),
                                       start_new_session=True)
        finally:
            os.close(writing)
        watching = threading.Event()
        if stop is not None:
            threading.Thread(target=stop_when, args=(stop, watching, process, grace),
                             daemon=True).start()
        try:
            for line in pipe:
                record = messages.read_message(line)
                if isinstance(record, messages.Progress):
                    progress += 1
                elif isinstance(record, messages.Notice) and record.kind == messages.DISK_FULL:
                    disk_full = True
                elif isinstance(record, messages.Notice):
                    notices.append(record.text)
                elif isinstance(record, messages.Refusal):
                    refusal = record.reason
                if on_message is not None and record is not None:
                    on_message(record)
            status = process.wait()
        finally:
            watching.set()
        stderr.seek(0)
        said = stderr.read().decode("utf-8", "replace")
    if stop is not None and stop.is_set():
        raise Stopped()
    host = found["host"]
    return ({"job": job["job"], "key": job["key"], "kit": found["kit"],
             "fingerprint": found["fingerprint"], "status": status, "refusal": refusal,
             "said": " ".join(said.split())[-SAID_MOST:], "notices": notices,
             "disk_full": disk_full, "progress": progress,
             "worker": {"host": host["host"], "cpu": host["cpu"], "python": host["python"],
                        "bwrap": host["bwrap"], "layers": host["layers"],
                        "kit": found["kit"]["commit"]},
             "seconds": time.monotonic() - started}, marked, report)


def stop_when(stop: threading.Event, done: threading.Event, process, grace: float) -> None:
    """Once `stop` is set (and the marker not done): SIGINT to the marker, its runs stop and
    it writes nothing more; SIGKILL to its session `grace` seconds later if it lingers."""
    while not done.is_set():
        if stop.wait(0.2):
            break
    if done.is_set():
        return
    try:
        process.send_signal(signal.SIGINT)
    except ProcessLookupError:
        return
    if not done.wait(grace):
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def watch_parent(stop: threading.Event) -> None:
    """`stop` set when the process that started this one dies (its parent changes)."""
    parent = os.getppid()

    def watch():
        while os.getppid() == parent and not stop.is_set():
            time.sleep(PARENT_POLL_SECONDS)
        stop.set()
    threading.Thread(target=watch, daemon=True).start()


def default_cache() -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "exactmark"


def share_of(text: str) -> tuple:
    found = SHARE.fullmatch(text)
    if found is None or not 1 <= int(found.group(1)) <= int(found.group(2)):
        raise argparse.ArgumentTypeError(BAD_SHARE)
    return int(found.group(1)), int(found.group(2))


def parser() -> argparse.ArgumentParser:
    parse = argparse.ArgumentParser(prog="exactmark mark-one", description=DESCRIPTION,
                                    epilog=EXAMPLE,
                                    formatter_class=argparse.RawDescriptionHelpFormatter)
    parse.add_argument("--kit", type=Path, metavar="KIT.tar.gz",
                       help="the worker kit (the job on stdin, the result on stdout)")
    parse.add_argument("--share", nargs=2, metavar=("K/N", "DIR"),
                       help="mark the K-th of N shares of DIR/jobs into DIR/results, with "
                            "DIR's kit (a Slurm array job's element)")
    parse.add_argument("--cache", type=Path, default=None,
                       help="where kits are unpacked and facts kept (default "
                            "~/.cache/exactmark)")
    parse.add_argument("--allow-fallback", action="store_true",
                       help="mark in the fallback sandbox where namespaces are refused")
    parse.add_argument("--host-margin", type=percentage, metavar="PCT",
                       help="the reference's CPU time here may differ from the coordinator's "
                            "by at most PCT percent (as exactmark class --host-margin; none: "
                            "not timed)")
    return parse


def percentage(text: str) -> float:
    """--host-margin PCT as the fraction the checks compare with."""
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 <= value < float("inf"):
        raise argparse.ArgumentTypeError(BAD_PERCENTAGE)
    return value / 100


def main(argv=None) -> int:
    parse = parser()
    options = parse.parse_args(argv)
    if (options.kit is None) == (options.share is None):
        parse.error(NEITHER)
    cache = (options.cache or default_cache()).absolute()  # the marker runs elsewhere
    stop = threading.Event()
    watch_parent(stop)
    for number in STOP_SIGNALS:  # GNU parallel's --termseq, a dropped ssh: the marker, in a
        signal.signal(number, lambda *_: stop.set())  # session of its own, is stopped too
    try:
        missing()
        if options.share is not None:
            return mark_share(options, parse, cache, stop)
        kit = unpack_kit(options.kit, cache)
        result = mark_job(sys.stdin.buffer.read(), kit, options.allow_fallback,
                          options.host_margin, stop=stop, cache=cache, grace=PARENT_GONE_SECONDS)
    except WorkerRefused as refused:
        print(refused, file=sys.stderr)
        return REFUSED_STATUS
    except (ValueError, OSError, KeyError, TypeError, subprocess.SubprocessError,
            Stopped) as problem:  # its own failure, or a job not of this kit's: one line
        print(FAILED.format(problem=escaped(str(problem) or type(problem).__name__, most=SAID_MOST)),
              file=sys.stderr)
        return FAILED_STATUS
    sys.stdout.buffer.write(result)
    sys.stdout.buffer.flush()
    return 0


def mark_share(options, parse, cache: Path, stop: threading.Event) -> int:
    """The K-th of N shares of DIR/jobs (the jobs in name order, every N-th from the K-th),
    each result into DIR/results; a job that has one already is skipped (a share run again
    goes on)."""
    try:
        share = share_of(options.share[0])
    except argparse.ArgumentTypeError as problem:
        parse.error(str(problem))
    folder = Path(options.share[1]).absolute()
    if not (folder / "jobs").is_dir():
        parse.error(NO_PLAN.format(folder=escaped(str(folder))))
    kits = sorted(folder.glob("kit-*.tar.gz"))
    if len(kits) != 1:
        parse.error(NO_KIT_IN.format(folder=folder, count=len(kits)))
    kit = unpack_kit(kits[0], cache)
    results = folder / "results"
    results.mkdir(exist_ok=True)
    mine = sorted((folder / "jobs").glob("*.tar.gz"))[share[0] - 1::share[1]]
    done = kept = failed = 0
    for job in mine:
        target = results / job.name
        if target.exists():
            kept += 1
            continue
        try:
            result = mark_job(job.read_bytes(), kit, options.allow_fallback, options.host_margin,
                              stop=stop, cache=cache, grace=PARENT_GONE_SECONDS)
        except (ValueError, OSError, KeyError, TypeError, subprocess.SubprocessError) as problem:
            failed += 1  # this job alone: the share's others are marked (collect names it)
            print(JOB_FAILED.format(job=escaped(job.name), problem=escaped(
                str(problem) or type(problem).__name__, most=SAID_MOST)), file=sys.stderr)
            continue
        write_atomically(target, result)
        done += 1
    print(MARKED_SHARE.format(share="/".join(map(str, share)), done=done, kept=kept,
                              failed=failed, total=len(mine)), file=sys.stderr)
    return FAILED_STATUS if failed else 0


if __name__ == "__main__":
    sys.exit(main(from_make.arguments(parser()) if len(sys.argv) == 1
                  and from_make.ARGS in os.environ else None))
