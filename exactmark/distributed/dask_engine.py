"""The engines "dask-local" and "dask" (#38): a class's jobs marked on Dask `distributed`
workers, a LocalCluster on this machine or the instructor's cluster, and `exactmark
dask-worker`, the documented way to start a worker for it.

Dask gives what a class run needs and we do not write: a scheduler that hands each task to
a worker with a free slot (the Dask resource `slots`: one student takes one), KilledWorker
when a task's worker dies (the scheduler's allowed-failures, 0 for the run: the coordinator
submits the job again, and says it lost when it was running on the worker that died the
second time), TLS with certificates between machines (Security), and workers that join and
leave while it runs. The kit goes once to
each worker as a worker plugin (UploadFile: a worker that joins later gets it too); each
task unpacks it in the worker's own folder and calls exactmark.distributed.worker.mark_job.

A worker that refuses (WorkerRefused) is said once (events.refused) and retired from this
run: its `slots` set to 0, so the scheduler gives it nothing more, and given back when the
run ends; its job is submitted again for another worker.
"""

import argparse
import collections
import ipaddress
import logging
import os
import socket
import sys
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

from exactmark.base import from_make
from exactmark.base.exits import Exit
from exactmark.distributed.engine import Engine, EngineError
from exactmark.distributed.shipment import write_atomically
from exactmark.distributed.worker import WorkerRefused, mark_job, unpack_kit
from exactmark.running.limits import MEMORY_BYTES

try:
    import distributed
    from distributed.diagnostics.plugin import UploadFile
except ModuleNotFoundError:  # said when a Dask engine is asked for (NOT_INSTALLED)
    distributed = None

MARKED, REFUSED = "marked", "refused"  # what a task answers
SLOTS = "slots"  # the Dask resource: students a worker marks at once; each task takes 1
TASK_RESOURCES = {SLOTS: 1}
KIT_PLUGIN = "exactmark-kit"  # one name: a run's kit replaces the one before it
KITS = "exactmark-kits"  # in a worker's local directory: the kits unpacked
STARTED_TOPIC = "exactmark-started"  # a worker's event as it takes a job
ALLOWED_FAILURES = 0  # the scheduler gives up a task whose worker died: the coordinator
DEATHS = 2  # decides: a job whose worker died this often while it ran is lost
FAILED_TRIES = 2  # a job whose task raised (not a refusal) this often is lost
CONNECT_SECONDS = 10  # an unreachable scheduler is said after this long
WORKER_SECONDS = 60  # no usable worker for this long (none joined, all refused): the end
REFUSED_SECONDS = 10  # the same once workers refused (one restarting may yet join)
POLL_SECONDS = 1.0  # how often the coordinator looks at the workers while it waits
TICK_SECONDS = 0.05  # how often it looks for finished jobs
SCHEMES = ("tcp", "tls")

# What the coordinator says: one line each (EngineError), or a worker's sentence.
NOT_INSTALLED = ("the Dask engines need distributed, which is not installed here: pip "
                 "install 'exactmark[dask]' (in the kit's folder: pip install '.[dask]')")
NO_SCHEDULER_GIVEN = "--engine dask needs --scheduler ADDRESS (tls://HOST:8786, or tcp://127.0.0.1:8786 on this machine)"
BAD_ADDRESS = "--scheduler {address!r} is not a Dask address: give tls://HOST:PORT (or tcp://127.0.0.1:PORT on this machine)"
PLAIN_OFF_LOOPBACK = ("the scheduler {address} is off this machine over plain tcp://: the scheduler "
                      "runs pickled functions, so across machines it must be tls:// with "
                      "certificates: make a CA and a certificate for the scheduler, each worker "
                      "and this coordinator with openssl, start them with --tls-ca-file, "
                      "--tls-cert, --tls-key and give here --tls-ca, --tls-cert, --tls-key "
                      "(docs/guide/engines.md, \"Certificates\", has the commands)")
TLS_MISSING = ("the scheduler {address} needs this coordinator's certificate: give --tls-ca, "
               "--tls-cert and --tls-key (docs/guide/engines.md, \"Certificates\")")
TLS_UNREADABLE = "cannot read {option} {path}: {why}"
UNREACHABLE = ("no Dask scheduler answered at {address} within {seconds} s ({why}): start it "
               "(dask scheduler) or check the address and certificates")
NO_WORKER = ("no worker of the scheduler at {address} could take a student for {seconds} s: "
             "start one on each machine with exactmark dask-worker {address}")
NO_SLOTS = ("worker {address} has no `slots` resource, so it is given no student: start it with "
            "exactmark dask-worker {scheduler} (or dask worker with --resources slots=N)")
SCHEDULER_LOST = ("the scheduler at {address} went away while it marked ({why}): start it "
                  "again and run the class again (what was collected is kept)")
ALL_REFUSED = "every worker refused, {count} student(s) left unmarked: {refusals}"
TOO_LITTLE_MEMORY = ("each of the {workers} worker(s) would have {memory} MiB, less than one "
                     "student's marking may hold ({limit} MiB): give fewer --workers")
LOST_TO_DEATHS = "marking this student killed its worker twice"
LOST_TO_FAILURES = "the worker failed twice marking it: {why}"
MEBIBYTE = 1 << 20
UNKNOWN_HOST = "a host that did not say its name"

WORKER_DESCRIPTION = ("Start a Dask worker for `exactmark class --engine dask --scheduler "
                      "ADDRESS`: `dask worker` with as many slots (students at once) as this "
                      "machine has cores and memory for (min(cores, memory // {limit} MiB), the "
                      "marker's memory limit), no dashboard, and TLS off this machine.")
WORKER_EXAMPLE = ("example: exactmark dask-worker tls://lab1:8786 --tls-ca ca.pem "
                  "--tls-cert lab2.pem --tls-key lab2.key")
WORKER_NO_SLOT = ("exactmark dask-worker: this machine has {memory} MiB of memory, less than "
                  "one student's marking may hold ({limit} MiB)")
WORKER_REFUSED_ADDRESS = "exactmark dask-worker: {line}"


def require_dask() -> None:
    if distributed is None:
        raise EngineError(NOT_INSTALLED)


def cores() -> int:
    """The cores this process may run on (a container's or taskset's, not the machine's)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def memory() -> int:
    """This machine's memory, in bytes."""
    return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")


def slots(cores_there: int, memory_there: int, per_student: int) -> int:
    """Students a worker marks at once: one a core, as many as its memory holds."""
    return max(0, min(cores_there, memory_there // per_student))


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def checked_address(address: str, tls: tuple) -> str:
    """The scheduler's address with its scheme; EngineError when it is not one, or when it
    is off this machine without TLS and the coordinator's certificates."""
    full = address if "://" in address else f"tcp://{address}"
    try:
        parts = urlsplit(full)
        parts.port
    except ValueError:
        raise EngineError(BAD_ADDRESS.format(address=address)) from None
    if parts.scheme not in SCHEMES or not parts.hostname or parts.path not in ("", "/"):
        raise EngineError(BAD_ADDRESS.format(address=address))
    if parts.scheme != "tls" and not is_loopback(parts.hostname):
        raise EngineError(PLAIN_OFF_LOOPBACK.format(address=address))
    if parts.scheme == "tls" and not all(tls):  # on this machine too: TLS needs them
        raise EngineError(TLS_MISSING.format(address=address))
    return full


def tls_files(options) -> tuple:
    return (getattr(options, "tls_ca", None), getattr(options, "tls_cert", None),
            getattr(options, "tls_key", None))


def security(tls: tuple):
    """Dask's Security for the coordinator's client: encryption required; None without
    certificates (loopback)."""
    if not all(tls):
        return None
    for option, path in zip(("--tls-ca", "--tls-cert", "--tls-key"), tls):
        try:
            Path(path).read_bytes()
        except OSError as error:
            raise EngineError(TLS_UNREADABLE.format(option=option, path=path,
                                                    why=error.strerror)) from None
    return distributed.Security(tls_ca_file=str(tls[0]), tls_client_cert=str(tls[1]),
                                tls_client_key=str(tls[2]), require_encryption=True)


def mark_here(name: str, job: bytes, kit_name: str, allow_fallback: bool, host_margin) -> tuple:
    """The task's work, on the worker it runs on, with the kit its plugin put in the
    worker's folder: (MARKED, host, address, result bytes) or (REFUSED, host, address,
    sentence). A refusal is an answer, not an error, so that the coordinator retires the
    worker rather than Dask trying it again."""
    worker = distributed.get_worker()
    host = socket.gethostname()
    worker.log_event(STARTED_TOPIC, {"job": name, "key": worker.get_current_task(),
                                     "host": host})
    cache = Path(worker.local_directory) / KITS
    try:
        kit = unpack_kit(cache.parent / kit_name, cache)
        return MARKED, host, worker.address, mark_job(job, kit, allow_fallback=allow_fallback,
                                                      host_margin=host_margin, cache=cache)
    except WorkerRefused as refusal:
        return REFUSED, host, worker.address, str(refusal)


def travelling_task():
    """The task as a function that travels by value (it is nested): the scheduler unpickles
    every task, and so needs no exactmark of its own; the worker imports it as it runs."""
    def mark_on_worker(*arguments, module=__name__):
        import importlib
        return importlib.import_module(module).mark_here(*arguments)
    return mark_on_worker


async def set_slots(count: float, dask_worker=None) -> None:
    """Run on a worker (Client.run, which gives dask_worker): its slots, said to the
    scheduler."""
    await dask_worker.set_resources(**{SLOTS: count})


def allowed_failures(client, count: int) -> int:
    """Set the scheduler's allowed-failures for this run; the value it had. The function
    is nested so that it travels by value: the scheduler needs no exactmark."""
    def swap(count, dask_scheduler=None):
        before, dask_scheduler.allowed_failures = dask_scheduler.allowed_failures, count
        return before
    return client.run_on_scheduler(swap, count)


def best_effort(call, *arguments, **options) -> None:
    """`call`, unless the scheduler or the worker it asks went away meanwhile."""
    try:
        call(*arguments, **options)
    except (OSError, KeyError, ValueError, RuntimeError, distributed.TimeoutError):
        pass  # RuntimeError: the client's connections closed with the scheduler


def one_line(error: BaseException) -> str:
    text = " ".join(str(error).split())
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


class Run:
    """One class run on a Dask client: submit every job, follow the workers, deliver each
    result once, retire refusing workers, and say a job lost after its second death."""

    def __init__(self, client, work, events, address: str):
        self.client, self.work, self.events, self.address = client, work, events, address
        self.waiting = collections.deque(work.jobs)  # not yet submitted, longest first
        self.futures = {}  # future -> job, submitted
        self.capacity = 0  # the usable workers' slots
        self.tries = {}  # job name -> submissions so far
        self.hosts = {}  # task key -> the hosts that took it, in order
        self.died_on = {}  # job name -> the host of each worker that died marking it
        self.failed_on = {}  # job name -> the host of each of its tasks that raised
        self.refused = {}  # worker address -> (host, sentence, its slots before)
        self.warned = set()  # workers said to have no slots
        self.lock = threading.Lock()
        self.usable_at = time.monotonic()
        self.usable = None
        self.completed = distributed.as_completed(loop=client.loop)
        self.task = travelling_task()

    def started(self, event) -> None:
        """A worker's STARTED_TOPIC event (on the client's thread)."""
        _, message = event
        with self.lock:
            self.hosts.setdefault(message["key"], []).append(message["host"])
        self.events.started(message["job"], message["host"])

    def submit(self, job) -> None:
        try:
            data = job.archive.read_bytes()
        except OSError as problem:  # the coordinator's disk, not the scheduler
            self.events.failed(job.name, problem.strerror or str(problem))
            return
        tries = self.tries[job.name] = self.tries.get(job.name, 0) + 1
        future = self.client.submit(
            self.task, job.name, data, self.work.kit.name,
            self.work.allow_fallback, self.work.host_margin, key=f"exactmark-{job.name}-{tries}",
            resources=TASK_RESOURCES, pure=False)
        self.futures[future] = job
        self.completed.add(future)

    def run(self) -> None:
        """Jobs go to the scheduler no faster than the usable workers' free slots take them
        (longest first, a job given back first): a task the scheduler placed on a worker
        counts as that worker's when it dies, so none waits there to be blamed."""
        before = None
        try:
            self.client.register_plugin(UploadFile(str(self.work.kit), load=False),
                                        name=KIT_PLUGIN)
            self.client.subscribe_topic(STARTED_TOPIC, self.started)
            before = allowed_failures(self.client, ALLOWED_FAILURES)
            watched = 0.0
            while (self.waiting or self.futures) and not self.events.stopping():
                if time.monotonic() - watched >= POLL_SECONDS:
                    self.watch_workers()
                    watched = time.monotonic()
                while self.waiting and len(self.futures) < self.capacity:
                    self.submit(self.waiting.popleft())
                done = self.completed.next_batch(block=False)
                if not done:
                    time.sleep(TICK_SECONDS)
                for future in done:
                    self.finished(future, self.futures.pop(future))
        except (OSError, distributed.TimeoutError) as error:
            raise EngineError(SCHEDULER_LOST.format(address=self.address,
                                                    why=one_line(error))) from None
        finally:
            self.stop(before)

    def finished(self, future, job) -> None:
        """A task's end: its result delivered, its worker retired (a refusal: the job again),
        the job lost (its second death, or its second failure), or the job again."""
        with self.lock:
            hosts = self.hosts.pop(future.key, [])
        if future.status == "finished":
            kind, host, address, answer = future.result()
            if kind == MARKED:
                target = self.work.result_path(job.name)
                try:
                    write_atomically(target, answer)
                except OSError as problem:  # the coordinator's disk, not the scheduler
                    self.events.failed(job.name, problem.strerror or str(problem))
                    return
                self.events.delivered(job.name, target)
                return
            self.retire(address, host, answer)
            self.waiting.appendleft(job)
            return
        error = future.exception() if future.status == "error" else None
        if isinstance(error, distributed.KilledWorker):
            if hosts:  # it was running there: its death; else it only waited there
                died_on = self.died_on.setdefault(job.name, [])
                died_on += hosts
                if len(died_on) >= DEATHS:
                    self.events.lost(job.name, died_on, LOST_TO_DEATHS)
                    return
            self.waiting.appendleft(job)
            return
        if error is not None:
            failed_on = self.failed_on.setdefault(job.name, [])
            failed_on.append(hosts[-1] if hosts else UNKNOWN_HOST)
            if len(failed_on) >= FAILED_TRIES:
                self.events.lost(job.name, failed_on, LOST_TO_FAILURES.format(why=one_line(error)))
                return
        self.waiting.appendleft(job)  # cancelled (its data lost with a worker) or failed once

    def retire(self, address: str, host: str, sentence: str) -> None:
        """A refusing worker: said once, given no job more in this run."""
        if address in self.refused:
            return
        workers = self.client.scheduler_info(n_workers=-1).get("workers", {})
        had = workers.get(address, {}).get("resources", {}).get(SLOTS, 0)
        self.refused[address] = (host, sentence, had)
        self.events.refused(host, sentence)
        best_effort(self.client.run, set_slots, 0, workers=[address])

    def stop(self, allowed: int) -> None:
        """What still runs cancelled, and the cluster as the run found it: the refused
        workers' slots, allowed-failures (best effort: the scheduler may be gone)."""
        best_effort(self.client.cancel, list(self.futures), force=True)
        for address, (_, _, had) in self.refused.items():
            best_effort(self.client.run, set_slots, had, workers=[address])
        if allowed is not None:
            best_effort(allowed_failures, self.client, allowed)

    def watch_workers(self) -> None:
        """Say the usable workers as they come and go, each worker without slots once; the
        end (EngineError) when none could take a student for WORKER_SECONDS."""
        known = self.client.scheduler_info(n_workers=-1)
        if "workers" not in known or self.client.status in ("closing", "closed"):
            raise EngineError(SCHEDULER_LOST.format(address=self.address,
                                                    why=f"the client is {self.client.status}"))
        workers = known["workers"]
        usable = capacity = 0
        for address, facts in workers.items():
            if address in self.refused:
                continue
            count = facts.get("resources", {}).get(SLOTS, 0)
            if count >= 1:
                usable, capacity = usable + 1, capacity + int(count)
            elif address not in self.warned:
                self.warned.add(address)
                self.events.refused(facts.get("host", address),
                                    NO_SLOTS.format(address=address, scheduler=self.address))
        self.capacity = capacity
        if usable != self.usable:
            self.usable = usable
            self.events.workers(usable)
        if usable:
            self.usable_at = time.monotonic()
        elif time.monotonic() - self.usable_at > (REFUSED_SECONDS if self.refused
                                                  else WORKER_SECONDS):
            if self.refused:
                refusals = "; ".join(sentence for _, sentence, _ in self.refused.values())
                raise EngineError(ALL_REFUSED.format(count=len(self.waiting) + len(self.futures),
                                                    refusals=refusals))
            raise EngineError(NO_WORKER.format(address=self.address, seconds=WORKER_SECONDS))


class DaskEngine(Engine):
    """--engine dask --scheduler ADDRESS: the instructor's cluster (dask scheduler and
    exactmark dask-worker on each machine, or Dask's SSHCluster)."""

    name = "dask"

    def check(self) -> None:
        address = getattr(self.options, "scheduler", None)
        if not address:
            raise EngineError(NO_SCHEDULER_GIVEN)
        tls = tls_files(self.options)
        checked_address(address, tls)
        if distributed is not None:
            security(tls)  # each certificate readable

    def connect(self):
        """A client, and what to close after (the client and anything started for it)."""
        address = getattr(self.options, "scheduler", None)
        if not address:
            raise EngineError(NO_SCHEDULER_GIVEN)
        tls = tls_files(self.options)
        address = checked_address(address, tls)
        try:
            client = distributed.Client(address, security=security(tls),
                                        timeout=CONNECT_SECONDS, set_as_default=False)
        except (OSError, TimeoutError, ValueError) as error:
            raise EngineError(UNREACHABLE.format(address=address, seconds=CONNECT_SECONDS,
                                                 why=one_line(error))) from None
        return client, address, [client]

    def run(self, work, events) -> None:
        require_dask()
        client, address, opened = self.connect()
        try:
            Run(client, work, events, address).run()
        except KeyboardInterrupt:
            pass  # the futures are cancelled; the coordinator collects what came
        finally:
            for thing in opened:
                thing.close()


class DaskLocalEngine(DaskEngine):
    """--engine dask-local [--workers N]: a LocalCluster of N worker processes on loopback
    (laptops, CI), no dashboard."""

    name = "dask-local"

    def check(self) -> None:
        """No scheduler to give: the cluster is started here."""

    def connect(self):
        count = getattr(self.options, "workers", None) or cores()
        memory_each = memory() // count
        per_worker = slots(max(1, cores() // count), memory_each, self.slots_memory)
        if not per_worker:
            raise EngineError(TOO_LITTLE_MEMORY.format(
                workers=count, memory=memory_each // MEBIBYTE,
                limit=self.slots_memory // MEBIBYTE))
        cluster = distributed.LocalCluster(
            n_workers=count, threads_per_worker=per_worker, processes=True,
            host="127.0.0.1", scheduler_port=0, dashboard_address=None,
            resources={SLOTS: per_worker}, memory_limit=0, silence_logs=logging.CRITICAL)
        client = distributed.Client(cluster, set_as_default=False)
        return client, cluster.scheduler_address, [client, cluster]

    def run(self, work, events) -> None:
        self.slots_memory = work.slots_memory
        super().run(work, events)


def worker_command(options, cores_here: int, memory_here: int) -> list:
    """`dask worker`'s command line for `exactmark dask-worker`."""
    tls = (options.tls_ca, options.tls_cert, options.tls_key)
    address = checked_address(options.scheduler, tls)
    count = slots(cores_here, memory_here, MEMORY_BYTES)
    if not count:
        raise EngineError(WORKER_NO_SLOT.format(memory=memory_here // MEBIBYTE,
                                                limit=MEMORY_BYTES // MEBIBYTE))
    command = [sys.executable, "-m", "dask", "worker", address, "--nthreads", str(count),
               "--resources", f"{SLOTS}={count}", "--no-dashboard", "--memory-limit", "0"]
    if all(tls):
        command += ["--tls-ca-file", str(tls[0]), "--tls-cert", str(tls[1]),
                    "--tls-key", str(tls[2])]
    if options.name:
        command += ["--name", options.name]
    return command


def worker_parser() -> argparse.ArgumentParser:
    parse = argparse.ArgumentParser(
        prog="exactmark dask-worker", epilog=WORKER_EXAMPLE,
        description=WORKER_DESCRIPTION.format(limit=MEMORY_BYTES // MEBIBYTE))
    parse.add_argument("scheduler", metavar="SCHEDULER",
                       help="the scheduler's address: tls://HOST:8786 (tcp:// on this machine only)")
    parse.add_argument("--tls-ca", type=Path, metavar="FILE", help="the CA's certificate")
    parse.add_argument("--tls-cert", type=Path, metavar="FILE", help="this worker's certificate")
    parse.add_argument("--tls-key", type=Path, metavar="FILE", help="this worker's private key")
    parse.add_argument("--name", help="the worker's name (default: Dask's)")
    return parse


def worker_main(argv=None) -> int:
    """exactmark dask-worker: `dask worker` in this process's place, so that a signal to it
    reaches the worker."""
    options = worker_parser().parse_args(argv)
    try:
        command = worker_command(options, cores(), memory())
    except EngineError as error:
        print(WORKER_REFUSED_ADDRESS.format(line=error), file=sys.stderr)
        return Exit.REFUSED
    os.execv(sys.executable, command)


if __name__ == "__main__":
    sys.exit(worker_main(from_make.arguments(worker_parser(), positional="MARK_SCHEDULER")
                         if "MARK_SCHEDULER" in os.environ else None))
