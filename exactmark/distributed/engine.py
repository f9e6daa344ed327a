"""The contract between the class run (the coordinator) and an engine, and the local engine.

The coordinator plans (one job archive per student, exactmark.distributed.jobs), hands the
engine a Work (the kit, the jobs longest first, where results go) and an Events (its side:
what the engine tells it), and collects each result as the engine delivers it. An engine
only carries jobs to workers and results back: every worker runs the same mark_job
(exactmark.distributed.worker), and only the coordinator writes OUT.

ENGINES names each engine's class by module, imported when chosen: a local run never
imports dask.
"""

import importlib
import socket
import threading
from concurrent.futures import ThreadPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path

from exactmark.distributed import worker
from exactmark.distributed.shipment import write_atomically

# name -> (module, class): the engines of `exactmark class --engine`.
ENGINES = {"local": ("exactmark.distributed.engine", "LocalEngine"),
           "dask-local": ("exactmark.distributed.dask_engine", "DaskLocalEngine"),
           "dask": ("exactmark.distributed.dask_engine", "DaskEngine"),
           "parallel": ("exactmark.distributed.parallel_engine", "ParallelEngine")}
RESULT_NAME = "{job}.tar.gz"  # in work.results
NO_ENGINE = "the {name} engine cannot start here: {problem}"


class EngineError(Exception):
    """The engine cannot go on (no scheduler at that address, no usable worker, no host
    reachable): str(error) is ONE line, said as `exactmark class: error: {line}`; the run
    then writes what it collected and exits 2. Never a traceback."""


@dataclass(frozen=True)
class Job:
    name: str  # unique in the run, safe as a file name: the student's folder
    archive: Path  # the job as a .tar.gz on the coordinator (jobs.write_job)
    estimate: float = None  # seconds the student's last marking took; None: unknown


@dataclass
class Work:
    kit: Path  # the worker kit, kit-<sha256>.tar.gz: sent once per worker or host
    jobs: list  # of Job, longest first
    results: Path  # a result lands as results/<job.name>.tar.gz (temporary name, renamed)
    allow_fallback: bool = False  # workers may mark in the fallback sandbox
    host_margin: float = None  # a fraction (0.25); None: no calibration
    slots_memory: int = 0  # bytes one student's marking may hold: slots are
    # min(cores, memory // slots_memory)

    def result_path(self, job: str) -> Path:
        return self.results / RESULT_NAME.format(job=job)


class Events:
    """The coordinator's side, as engines call it (from any thread). This one records what
    it is told and collects nothing: the coordinator's own (exactmark.distributed.collect)
    collects; a test of an engine uses this one as it is."""

    def __init__(self):
        self.lock = threading.Lock()
        self.said = []  # (method, arguments...) in the order told
        self.stop = threading.Event()

    def tell(self, *what) -> None:
        with self.lock:
            self.said.append(what)

    def started(self, job: str, host: str) -> None:
        """A worker took the job."""
        self.tell("started", job, host)

    def delivered(self, job: str, archive: Path) -> None:
        """The job's result is at `archive` (in work.results); a second one is dropped."""
        self.tell("delivered", job, archive)

    def lost(self, job: str, hosts: list, why: str) -> None:
        """The job killed its worker twice (hosts: each host it died on)."""
        self.tell("lost", job, list(hosts), why)

    def refused(self, host: str, sentence: str) -> None:
        """A worker refused (its sentence): it gets no job more."""
        self.tell("refused", host, sentence)

    def workers(self, count: int) -> None:
        """Workers (or hosts) usable now, for the bar."""
        self.tell("workers", count)

    def message(self, job: str, record) -> None:
        """A message of the job's marker as it marks (exactmark.base.messages), where the
        engine has them as they come (the local engine's bar moves a case at a time)."""

    def failed(self, job: str, why: str) -> None:
        """The coordinator's own work failed the job (a full disk, say): not marked, the
        next run marks it."""
        self.tell("failed", job, why)

    def stopping(self) -> bool:
        """Ctrl-C was pressed: submit nothing more."""
        return self.stop.is_set()

    def told(self, what: str) -> list:
        """The arguments of each call of `what`, in order (for tests)."""
        with self.lock:
            return [said[1:] for said in self.said if said[0] == what]


class Engine:
    name = ""

    def __init__(self, options):
        self.options = options

    def check(self) -> None:
        """What can be told before anything is planned (an option missing, a file that is
        not there, the engine not installed): EngineError. Connects to nothing."""

    def run(self, work: Work, events: Events) -> None:
        """Mark every job of `work` once, on any worker: return when each is delivered or
        lost. A job whose worker died is marked again on another worker; after its second
        such death it is lost. A worker that refused (exit 3 / WorkerRefused) gets no job
        more, and its job goes to another. When no worker is left to mark what remains:
        EngineError (one line, naming the refusals). KeyboardInterrupt / events.stopping():
        stop submitting, stop what runs (best effort), return."""
        raise NotImplementedError


def engine(name: str, options) -> Engine:
    """The engine named `name` (ENGINES), made with the run's options; EngineError when its
    module cannot be imported here (dask not installed, say)."""
    module, cls = ENGINES[name]
    try:
        return getattr(importlib.import_module(module), cls)(options)
    except ImportError as problem:
        raise EngineError(NO_ENGINE.format(name=name, problem=problem)) from None


class LocalEngine(Engine):
    """This machine: --jobs students at once, each in a thread that runs the worker's
    mark_job with the kit unpacked beside the results; the bar moves a case at a time. On
    Ctrl-C no job starts, each marker in flight gets SIGINT (SIGKILL STOP_SECONDS later),
    and the KeyboardInterrupt goes on to the coordinator once they have stopped."""
    name = "local"

    def run(self, work: Work, events: Events) -> None:
        kit = worker.unpack_kit(work.kit, work.results.parent / "kits")
        host = socket.gethostname()
        stop = threading.Event()
        events.workers(self.options.jobs)

        def mark(job: Job) -> None:
            if stop.is_set() or events.stopping():
                return
            events.started(job.name, host)
            try:
                data = worker.mark_job(job.archive.read_bytes(), kit, allow_fallback=True,
                                       on_message=lambda record: events.message(job.name, record),
                                       stop=stop, cache=work.results.parent / "kits")
                target = work.result_path(job.name)
                write_atomically(target, data)
            except worker.Stopped:
                return
            except worker.WorkerRefused as refused:
                stop.set()
                events.refused(host, str(refused))
                raise EngineError(str(refused)) from None
            except OSError as problem:
                events.failed(job.name, problem.strerror or str(problem))
                return
            events.delivered(job.name, target)

        pool = ThreadPoolExecutor(self.options.jobs)
        futures = [pool.submit(mark, job) for job in work.jobs]
        try:
            for future in futures:
                future.result()
        except KeyboardInterrupt:
            stop.set()
            pool.shutdown(wait=False, cancel_futures=True)
            wait([future for future in futures if not future.cancelled()],
                 timeout=worker.STOP_SECONDS + 5)
            raise
        except EngineError:
            stop.set()
            raise
        finally:
            pool.shutdown(wait=True)

