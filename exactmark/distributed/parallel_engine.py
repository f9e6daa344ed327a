"""Engine "parallel": GNU parallel over ssh, for a few lab machines and ssh keys.

    exactmark class ... --engine parallel --hosts FILE [--worker-python PATH]

No daemon and no port but ssh: GNU parallel (Debian's `parallel`) runs on the coordinator
and reaches each host of FILE, its --sshloginfile ("4/lab3" a line: four students at once
on lab3; ":" is this machine), through ssh. What crosses, and who does what:

- the kit archive goes to each host once, as parallel's --basefile, into the run's working
  folder (~/.exactmark-parallel/RUN there); the host unpacks it once per kit into
  ~/.exactmark-parallel/kits (BOOT, then the worker's own unpack_kit), and runs the worker
  from it, PYTHONPATH the unpacked kit: the host needs Python, perl and rsync, no kit;
- each job archive goes as --transferfile, one command line per student runs
  `PYTHON -m exactmark.distributed.worker --kit KIT` with the job on stdin, and its result
  comes back as --return (rsync writes it under a temporary name, then renames it), to be
  moved into work.results and delivered; --cleanup removes what was sent and returned;
- files on both sides are named by the job's number in the run (job-7.tar.gz), never by the
  student: a name with spaces, quotes or accents never reaches a shell or rsync, and every
  path the engine gives parallel or a remote shell is quoted (shlex.quote);
- parallel runs on the jobs' numbers (--arg-file), longest first, each tried once (no
  --retries), so that the job log (--joblog) has every try's host and exit status; each
  command says on its stdout, tagged by parallel with the try's {#}, when it starts on
  which host, a refusal's sentence and the worker's last words (REPORT lines). (parallel's
  --retries would keep a failed try's output and log line from the engine; and a
  parallel fed on its stdin blocks reading it and notices no job's end);
- a job whose try failed goes into the next round, when this one is over, for another
  host: each host of the copy of FILE that parallel reads is in a hostgroup of its own,
  and the job goes with the groups of the hosts it has not died on (--hostgroups). A
  worker that refuses (exit 3) has its host dropped from the copy (written again:
  parallel re-reads a changed --sshloginfile) and events.refused says its sentence; a
  host that does not answer over ssh (asked at the start, before each round and whenever
  FILE changes) or whose connection drops is left out; a worker that died (a try that
  started and ended with a status other than 0 and 3, its ssh's 255 among them) counts a
  death on that host, and a job with two deaths is lost. A round that delivers, loses and
  drops nothing ends the run (EngineError);
- FILE is watched: a host added or removed while the run goes is used or dropped;
- the job log (--joblog, appended) is kept in OUT/instructor/.engine/joblog: a record of
  every try, its host and status, run after run. Resuming is the plan's: a
  coordinator stopped and started again plans only the students not yet collected, so the
  jobs and their numbers differ from one run to the next and parallel's --resume, which
  goes by those numbers, is not given;
- Ctrl-C: parallel gets SIGTERM and stops its jobs as --termseq says (SIGINT first: the
  worker stops its marker); a dropped ssh stops the remote job the same way.

The citation notice: GNU parallel's author asks that software calling parallel neither hide
the notice with --will-cite (unless paid for) nor keep it from its users. The engine does
not give --will-cite; parallel's stderr is a pipe the engine reads, where parallel itself
says nothing; so the engine says the notice once per run, as parallel would, on a terminal
and unless the instructor has said they will cite (parallel's will-cite file).
"""

import os
import queue
import re
import secrets
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections import deque
from pathlib import Path

from exactmark.distributed.engine import Engine, EngineError

NOT_INSTALLED = "GNU parallel is not installed here: apt-get install parallel"
NO_HOSTS = ("--engine parallel needs --hosts FILE: GNU parallel's sshloginfile, a host a line "
            "(4/lab3: four students at once on lab3)")
HOSTS_UNREADABLE = "--hosts {file}: {problem}"
NO_HOST_ANSWERED = "no host of {file} answers over ssh"
NONE_LEFT = "no host of {file} is left to mark {count} student(s): {refusals}"
NO_PROGRESS = "GNU parallel marked none of the {count} student(s) left (exit status {status}): {said}"
LOST = "marking this student killed its worker twice"
HOST_GONE = "host {host} went away (ssh exit status 255): its students go to the others"
HOST_SILENT = ("host {host} does not answer over ssh: left out until {file} changes (ssh {login} "
               "true, to see why)")
CITATION = ("Marking with GNU parallel (O. Tange). If you publish results it helped produce, "
            "cite it: {citation}")
CITATION_DEFAULT = "as `parallel --help` or its manual asks"
PARALLEL_SAID_MOST = 20  # of parallel's stderr lines, the last, for an error's one line

REFUSED_STATUS = 3  # the worker's: it refuses, its sentence the last line of its stderr
UNREACHABLE = 255  # ssh's: it could not reach the host, or the connection dropped
DEATHS = 2  # a job whose worker died this many times is lost
STOP_SECONDS = 40  # for parallel to stop its jobs after SIGTERM (its --termseq), then SIGKILL
TERMSEQ = "INT,30000,TERM,5000,KILL,25"  # the worker's SIGINT stops its marker in seconds
POLL_SECONDS = 0.2
PROBE_SECONDS = 60  # for a host to answer `true` over ssh
HOSTS_POLL_SECONDS = 1.0
HERE = ":"  # an sshlogin for this machine
WORKING = ".exactmark-parallel"  # below the home folder on a host (and below `base` here)
KITS = "kits"  # beside the runs' folders: kits unpacked once per host
JOBLOG = Path("instructor") / ".engine" / "joblog"  # below OUT
# parallel's own header of a job log: appending (+FILE), it writes none
JOBLOG_HEADER = "Seq\tHost\tStarttime\tJobRuntime\tSend\tReceive\tExitval\tSignal\tCommand\n"
JOB_FILE = "job-{number}.tar.gz"
RESULT_FILE = "job-{number}.result"
RESULT = re.compile(r"job-([0-9]+)\.result")
SSHLOGIN = re.compile(r"(?:@[^/\s]+/)?(?:[0-9]+/)?(.*)")  # [@groups/][ncpus/]sshlogin
WILL_CITE = "will-cite"  # in parallel's home: the instructor said they will cite
# The shell parallel writes the job's command for and runs it with here: job_command is
# POSIX sh, whatever shell the instructor runs the coordinator from (parallel would take
# the calling shell's, csh or fish among them, else $SHELL). On a host, the worker user's
# login shell runs it (sshd's SHELL): one of the sh family (engines.md's useradd).
SHELL = "/bin/sh"

# What each job's command says on its stdout, a line each, tagged by parallel with the
# job's number: STARTED host sshlogin, REFUSED sentence, ENDED status.
STARTED, REFUSED, ENDED = "exactmark-started", "exactmark-refused", "exactmark-ended"

# Run on a host by its worker Python: make the kit's own code importable from the kit
# archive (its exactmark/ files, nothing else), unpack the kit with the worker's
# unpack_kit the first time, then become the worker, PYTHONPATH the unpacked kit. A Python
# that cannot do that refuses: exit 3, its sentence on stderr, worker.REFUSED's, with
# worker.LIBRARIES_MISSING's words for a library it lacks (a test holds them equal). No
# braces: parallel would take them for its replacement strings.
BOOT = r"""
import os, socket, sys, tarfile, tempfile
kit, cache = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
into = os.path.join(cache, os.path.basename(kit)[:-len(".tar.gz")])
try:
    if not os.path.isfile(os.path.join(into, "kit.json")):
        with tempfile.TemporaryDirectory() as code, tarfile.open(kit) as archive:
            mine = [member for member in archive.getmembers() if member.isfile()
                    and member.name.startswith("exactmark/")
                    and ".." not in member.name.split("/")]
            safely = dict(filter="data") if hasattr(tarfile, "data_filter") else dict()
            archive.extractall(code, mine, **safely)
            sys.path.insert(0, code)
            from pathlib import Path
            from exactmark.distributed.worker import unpack_kit
            into = str(unpack_kit(Path(kit), Path(cache)))
except ImportError as problem:
    why = "it lacks %s for %s: %s -m pip install %s" % (
        problem.name, sys.executable, sys.executable, problem.name)
except Exception as problem:
    why = "%s cannot unpack the kit (%s: %s)" % (sys.executable, type(problem).__name__, problem)
else:
    why = None
if why is not None:
    print("worker %s refused: %s" % (socket.gethostname(), why), file=sys.stderr)
    sys.exit(3)
os.environ["PYTHONPATH"] = into
os.execv(sys.executable, [sys.executable, "-m", "exactmark.distributed.worker",
                          "--kit", kit, "--cache", cache] + sys.argv[3:])
"""


def job_command(kit: str, python: str, options: list) -> str:
    """The shell command parallel runs for each job ({1}: the job's number), on a host in
    the run's working folder: the job on the worker's stdin, its result renamed into place
    only when the worker wrote one (exit 0), the REPORT lines on stdout."""
    q = shlex.quote
    worker = " ".join([q(python), "-c", q(BOOT), q(kit), q(f"../{KITS}"), *map(q, options)])
    return (f"printf '{STARTED}\\t%s\\t%s\\n' \"$PARALLEL_SSHHOST\" \"$PARALLEL_SSHLOGIN\"; "
            f"if command -v {q(python)} >/dev/null 2>&1; then "
            f"{worker} <job-{{1}}.tar.gz >job-{{1}}.part 2>job-{{1}}.err; s=$?; "
            f"else printf 'worker %s refused: it has no %s\\n' \"$(uname -n)\" {q(python)} "
            f">job-{{1}}.err; "
            f"s={REFUSED_STATUS}; fi; "
            f"if [ $s = 0 ]; then mv job-{{1}}.part job-{{1}}.result; "
            f"elif [ $s = {REFUSED_STATUS} ]; then "
            f"printf '{REFUSED}\\t%s\\n' \"$(tail -n 1 job-{{1}}.err)\"; fi; "
            f"printf '{ENDED}\\t%s\\t%s\\n' $s \"$(tail -n 1 job-{{1}}.err)\"; "
            f"rm -f job-{{1}}.part job-{{1}}.err; exit $s")


def sshlogin(line: str) -> str:
    """The sshlogin of an sshloginfile line, as parallel names it (its $PARALLEL_SSHLOGIN):
    the line without its hostgroups and its count of CPUs."""
    return SSHLOGIN.fullmatch(line.strip()).group(1)


def host_of(login: str) -> str:
    """A host's name as the instructor reads it: the sshlogin's last word (parallel's
    $PARALLEL_SSHHOST), this machine's name for ':'."""
    return socket.gethostname() if login == HERE else login.split()[-1].rpartition("@")[2]


class Hosts:
    """FILE, the instructor's, and the copy of it parallel reads (--sshloginfile): the
    copy is FILE without the hosts that refused and those that do not answer, written
    again whenever that changes. Whether a host answers is asked of parallel itself
    (`parallel --nonall true`, each host at once) when FILE changes and before each round;
    a host whose connection dropped is left out until then. (parallel's own --filter-hosts
    would do it, but it puts a host's threads in place of the count FILE gives it.)
    parallel re-reads a copy whose time moved by more than a second: each copy is given a
    time two seconds past the last."""

    def __init__(self, file: Path, copy: Path):
        self.file, self.copy = file, copy
        self.refused = {}  # sshlogin -> its sentence
        self.down = set()  # sshlogins that did not answer
        self.groups = {}  # sshlogin -> its own hostgroup in the copy (h0, h1, ...)
        self.lines = []  # FILE's host lines as last read
        self.seen = None  # FILE's (time, size) as last read
        self.stamp = 0
        self.lock = threading.Lock()

    def read(self) -> bool:
        """FILE read again if it changed: whether it did."""
        try:
            status = self.file.stat()
            changed = (status.st_mtime_ns, status.st_size) != self.seen
            if changed:
                text = self.file.read_text(encoding="utf-8", errors="replace")
        except OSError as problem:
            raise EngineError(HOSTS_UNREADABLE.format(
                file=self.file, problem=problem.strerror or problem)) from None
        if changed:
            with self.lock:
                self.seen = (status.st_mtime_ns, status.st_size)
                self.lines = [line.strip() for line in text.splitlines()
                              if line.strip() and not line.strip().startswith("#")]
        return changed

    def probe(self) -> list:
        """Each host not refused asked whether it answers over ssh; the copy written. The
        hosts newly found not answering."""
        with self.lock:
            asked = [line for line in self.lines if sshlogin(line) not in self.refused]
        listed, log = self.copy.with_name("probe-hosts"), self.copy.with_name("probe-log")
        listed.write_text("".join(line + "\n" for line in asked), encoding="utf-8")
        log.unlink(missing_ok=True)
        subprocess.run(["parallel", "--nonall", "--sshloginfile", str(listed), "--joblog",
                        str(log), "--timeout", str(PROBE_SECONDS), "true"],
                       stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, cwd=self.copy.parent, env=environment())
        answered = set()
        if log.exists():
            for row in log.read_text(encoding="utf-8", errors="replace").splitlines()[1:]:
                fields = row.split("\t")
                if len(fields) > 6 and fields[6] == "0":
                    answered.add(fields[1])
        with self.lock:
            before = set(self.down)
            self.down = {sshlogin(line) for line in asked} - answered
            news = sorted(self.down - before)
        self.write()
        return news

    def went_down(self, login: str) -> None:
        """The host's connection dropped: left out until FILE changes or the next round."""
        with self.lock:
            self.down.add(login)
        self.write()

    def usable(self) -> list:
        with self.lock:
            return [line for line in self.lines
                    if sshlogin(line) not in self.refused and sshlogin(line) not in self.down]

    def refuse(self, login: str, sentence: str) -> bool:
        """The host `login` refused: dropped from the copy. Whether it is news."""
        with self.lock:
            if login in self.refused:
                return False
            self.refused[login] = sentence
        self.write()
        return True

    def group(self, line: str) -> str:
        """The hostgroup the copy gives the host of `line`, its own: a job tried again is
        given the groups of the hosts it may go to (parallel's --hostgroups)."""
        with self.lock:
            return self.groups.setdefault(sshlogin(line), f"h{len(self.groups)}")

    def grouped(self, line: str) -> str:
        """`line` in its own hostgroup too, beside any the instructor gave it."""
        if line.startswith("@"):
            return f"@{self.group(line)}+{line[1:]}"
        return f"@{self.group(line)}/{line}"

    def write(self) -> None:
        lines = [self.grouped(line) for line in self.usable()]
        with self.lock:
            self.stamp = max(time.time(), self.stamp + 2)
            temporary = self.copy.with_name(self.copy.name + ".new")
            temporary.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
            os.utime(temporary, (self.stamp, self.stamp))
            os.replace(temporary, self.copy)


def environment() -> dict:
    """parallel's environment: the coordinator's, the shell pinned."""
    return {**os.environ, "PARALLEL_SHELL": SHELL}


def citation() -> str:
    """The citation parallel's own help asks for (its lines after "please cite:")."""
    try:
        said = subprocess.run(["parallel", "--help"], capture_output=True, text=True,
                              stdin=subprocess.DEVNULL, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return CITATION_DEFAULT
    lines = said.splitlines()
    for at, line in enumerate(lines):
        if line.rstrip().endswith("please cite:"):
            cited = []
            for text in lines[at + 1:]:
                if not text.strip() and cited:
                    break
                cited.append(text.strip())
            return " ".join(word for word in cited if word) or CITATION_DEFAULT
    return CITATION_DEFAULT


def will_cite() -> bool:
    """Whether the instructor said they will cite (upstream's `parallel --citation` leaves
    this file in parallel's home)."""
    home = Path(os.environ.get("PARALLEL_HOME") or Path.home() / ".parallel")
    return (home / WILL_CITE).exists()


def say(line: str) -> None:
    """A line for the instructor, above the coordinator's bar when there is one."""
    try:
        from tqdm import tqdm
        tqdm.write(line, file=sys.stderr)
    except ImportError:
        print(line, file=sys.stderr)


class Attempt:
    """A job's tries, as the job log and the REPORT lines tell them."""

    def __init__(self):
        self.deaths = []  # the host of each death
        self.avoid = []  # hosts it died on or that refused it: its next try goes elsewhere
        self.why = ""  # the last line its worker said when it last died
        self.done = False  # delivered or lost


class ParallelEngine(Engine):
    name = "parallel"

    def check(self) -> None:
        if shutil.which("parallel") is None:
            raise EngineError(NOT_INSTALLED)
        hosts = getattr(self.options, "hosts", None)
        if hosts is None:
            raise EngineError(NO_HOSTS)
        if not Path(hosts).is_file():
            raise EngineError(HOSTS_UNREADABLE.format(file=hosts, problem="no such file"))

    def run(self, work, events) -> None:
        self.check()
        self.work, self.events = work, events
        self.base = work.results.parent / "parallel"
        self.run_folder = Path(WORKING) / secrets.token_hex(6)
        self.stage = self.base / self.run_folder
        self.stage.mkdir(parents=True, exist_ok=True)
        (self.base / WORKING / KITS).mkdir(exist_ok=True)
        self.hosts = Hosts(Path(self.options.hosts), self.base / "sshloginfile")
        self.hosts.read()
        out = getattr(self.options, "out", None)
        self.joblog = (Path(out).absolute() / JOBLOG) if out is not None else self.base / "joblog"
        self.joblog.parent.mkdir(parents=True, exist_ok=True)
        if not self.joblog.exists():
            self.joblog.write_text(JOBLOG_HEADER, encoding="ascii")
        self.logged = self.joblog.stat().st_size  # this run's lines start here
        self.jobs = list(work.jobs)
        self.attempts = [Attempt() for _ in self.jobs]
        self.tries = []  # each line of the round (its {#} less one): the job's number
        self.started = {}  # {#} of each try that said it started -> its sshlogin
        self.last_said = {}  # {#} of each try that ended -> the last line its worker said
        self.count = None  # hosts usable, as last told
        self.stopped = False  # parallel is being stopped: what it stops counts no death
        self.stage_files()
        if sys.stderr.isatty() and not will_cite():
            say(CITATION.format(citation=citation()))
        self.probe()
        if not self.hosts.usable():
            raise EngineError(NO_HOST_ANSWERED.format(file=self.hosts.file))
        watching = threading.Event()
        threading.Thread(target=self.watch_hosts, args=(watching,), daemon=True).start()
        try:
            self.parallel()
        finally:
            watching.set()

    def stage_files(self) -> None:
        """The kit and each job, in the run's working folder here, under their numbers (a
        link where the file system allows, else a copy)."""
        for number, job in enumerate(self.jobs):
            self.place(job.archive, self.stage / JOB_FILE.format(number=number))
        self.place(self.work.kit, self.stage / self.work.kit.name)

    @staticmethod
    def place(source: Path, target: Path) -> None:
        try:
            os.link(source, target)
        except OSError:
            shutil.copyfile(source, target)

    def watch_hosts(self, done: threading.Event) -> None:
        """FILE read again every second: a host added or removed goes into the copy."""
        while not done.wait(HOSTS_POLL_SECONDS):
            try:
                if self.hosts.read():
                    self.probe()
            except EngineError:
                continue  # FILE mid-edit or gone for a moment: the copy stays as it was

    def probe(self) -> None:
        """The hosts asked whether they answer; those that do not said, once each time."""
        for login in self.hosts.probe():
            say(HOST_SILENT.format(host=host_of(login), file=self.hosts.file,
                                   login=shlex.quote(login)))
        self.tell_workers()

    def left(self) -> list:
        return [number for number, attempt in enumerate(self.attempts) if not attempt.done]

    def command(self, listed: Path) -> list:
        """parallel's command line, the jobs' lines in the file `listed`."""
        options = ["--allow-fallback"] if self.work.allow_fallback else []
        if self.work.host_margin is not None:
            options += ["--host-margin", repr(self.work.host_margin * 100)]
        python = str(getattr(self.options, "worker_python", None) or "python3")
        return ["parallel", "--sshloginfile", str(self.hosts.copy), "--hostgroups",
                "--workdir", str(self.run_folder),
                "--basefile", f"{self.stage}/./{self.work.kit.name}",
                "--transferfile", f"{self.stage}/./{JOB_FILE.format(number='{1}')}",
                "--return", f"{self.stage}/./{RESULT_FILE.format(number='{1}')}",
                "--cleanup", "--joblog", f"+{self.joblog}", "--line-buffer",
                "--tagstring", "{#}", "--termseq", TERMSEQ, "--arg-file", str(listed),
                job_command(self.work.kit.name, python, options)]

    def line(self, number: int, avoid: list) -> str:
        """Job `number`'s line for parallel: on any host but those in `avoid` while another
        is there (a hostgroup for each host: Hosts.group)."""
        groups = [self.hosts.group(line) for line in self.hosts.usable()
                  if host_of(sshlogin(line)) not in avoid]
        return f"{number}@{'+'.join(groups)}\n" if avoid and groups else f"{number}\n"

    def parallel(self) -> None:
        """parallel run on the jobs left, round after round: a job whose try failed goes
        into the next round, to the hosts it has not died on; a round that delivers, loses
        and drops nothing is the end."""
        while self.left():  # longest first
            before = self.progress()
            status, said = self.round(self.left())
            if self.events.stopping():
                return
            if self.left() and not self.hosts.usable():
                if self.hosts.refused:
                    raise EngineError(NONE_LEFT.format(
                        file=self.hosts.file, count=len(self.left()),
                        refusals="; ".join(self.hosts.refused.values())))
                raise EngineError(NO_HOST_ANSWERED.format(file=self.hosts.file))
            if self.left() and self.progress() == before:
                raise EngineError(NO_PROGRESS.format(count=len(self.left()), status=status,
                                                     said=" ".join(said) or "it said nothing"))
            if self.left():
                self.probe()

    def progress(self) -> tuple:
        return (len(self.left()), len(self.hosts.refused), len(self.hosts.down),
                sum(len(attempt.deaths) for attempt in self.attempts))

    def round(self, numbers: list) -> tuple:
        """One parallel on the jobs `numbers`, each try's end read from the job log as it
        comes, each result delivered as it comes back: (parallel's exit status, the last
        lines of its stderr)."""
        listed = self.base / "jobs.txt"
        listed.write_text("".join(self.line(number, self.attempts[number].avoid)
                                  for number in numbers), encoding="ascii")
        self.tries = list(numbers)  # a try's {#} less one: the job's number
        self.started, self.last_said, self.stopped = {}, {}, False
        heard = queue.Queue()  # (1, a stdout line) or (2, a stderr line)
        said = deque(maxlen=PARALLEL_SAID_MOST)
        process = subprocess.Popen(self.command(listed), cwd=self.base, env=environment(),
                                   stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, start_new_session=True)
        readers = [threading.Thread(target=self.read_lines, args=(stream, fd, heard.put),
                                    daemon=True)
                   for stream, fd in ((process.stdout, 1), (process.stderr, 2))]
        for reader in readers:
            reader.start()
        try:
            while process.poll() is None or any(map(threading.Thread.is_alive, readers)) \
                    or not heard.empty():
                if self.events.stopping() or (self.left() and not self.hosts.usable()):
                    self.stop(process)
                try:
                    fd, line = heard.get(timeout=POLL_SECONDS)
                    while True:  # all that came: a try's lines come before its end in the log
                        (self.heard if fd == 1 else said.append)(line)
                        fd, line = heard.get_nowait()
                except queue.Empty:
                    pass
                self.collect()
                self.read_joblog()
        except KeyboardInterrupt:
            self.stop(process)
            raise
        self.collect()
        self.read_joblog()
        return process.wait(), list(said)

    @staticmethod
    def read_lines(stream, fd: int, put) -> None:
        for line in stream:
            put((fd, line.decode("utf-8", "replace").rstrip("\n")))

    def heard(self, line: str) -> None:
        """A REPORT line of a try (its {#} the tag)."""
        seq, _, said = line.partition("\t")
        if not seq.isdigit() or not 0 < int(seq) <= len(self.tries):
            return
        number = self.tries[int(seq) - 1]
        kind, _, rest = said.partition("\t")
        if kind == STARTED:
            self.started[int(seq)] = login = rest.partition("\t")[2]
            self.events.started(self.jobs[number].name, host_of(login))
        elif kind == REFUSED and int(seq) in self.started:
            login = self.started[int(seq)]
            if self.hosts.refuse(login, rest):
                self.events.refused(host_of(login), rest)
                self.tell_workers()
        elif kind == ENDED:
            self.last_said[int(seq)] = rest.partition("\t")[2]

    def read_joblog(self) -> None:
        """The job log's new lines: each try's end (its host and exit status)."""
        with open(self.joblog, "rb") as log:
            log.seek(self.logged)
            data = log.read()
        complete = data[:data.rfind(b"\n") + 1]
        self.logged += len(complete)
        for row in complete.decode("utf-8", "replace").splitlines():
            fields = row.split("\t")
            if len(fields) > 7 and fields[0].isdigit() and 0 < int(fields[0]) <= len(self.tries):
                self.tried(int(fields[0]), fields[1], fields[6])

    def tried(self, seq: int, login: str, status: str) -> None:
        """A try over, on `login`, with `status`: a result (collected as it comes back), a
        refusal, a host that did not answer, or a death; the job into the next round unless
        it is done or lost."""
        number = self.tries[seq - 1]
        attempt = self.attempts[number]
        if attempt.done or status == "0" or self.stopped:
            return
        host = host_of(login)
        refused = status == str(REFUSED_STATUS)
        if not refused:
            if status == str(UNREACHABLE) or seq not in self.started:
                if seq in self.started:
                    say(HOST_GONE.format(host=host))
                self.hosts.went_down(login)
                self.tell_workers()
            if seq in self.started:  # it began: the worker died (or its host went away)
                attempt.deaths.append(host)
                attempt.avoid.append(host)
                attempt.why = self.last_said.get(seq, "") or attempt.why
        if len(attempt.deaths) >= DEATHS:
            attempt.done = True
            self.events.lost(self.jobs[number].name, attempt.deaths,
                             LOST + (f": {attempt.why}" if attempt.why else ""))
        elif refused:
            attempt.avoid.append(host)

    def tell_workers(self) -> None:
        """The hosts usable now, for the bar, when that changed."""
        count = len(self.hosts.usable())
        if count != self.count:
            self.count = count
            self.events.workers(count)

    def collect(self) -> None:
        """Each result come back, moved into work.results and delivered."""
        for path in self.stage.iterdir():
            found = RESULT.fullmatch(path.name)
            if found is None or int(found.group(1)) >= len(self.jobs):
                continue
            number = int(found.group(1))
            job, attempt = self.jobs[number], self.attempts[number]
            if attempt.done:
                path.unlink()
                continue
            target = self.work.result_path(job.name)
            os.replace(path, target)
            attempt.done = True
            self.events.delivered(job.name, target)

    def stop(self, process) -> None:
        """parallel stopped as it stops itself: SIGTERM, its jobs stopped by --termseq;
        its whole session killed if it lingers. What it stops counts no death."""
        self.stopped = True
        if process.poll() is not None:
            return
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(STOP_SECONDS)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
