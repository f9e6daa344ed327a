"""Run a program in a real terminal (a pty) and type its input as a person
would: each line only once the program is waiting for it, so the screen shows
every echo where it was read.

"Waiting for input" is read from Linux's /proc: the program is blocked in a
read of its standard input (or in select/poll, as readline does) after the
previous line was consumed. Output post-processing (ONLCR) is turned off in
the terminal, so the screen holds the program's own `\\n`, not `\\r\\n`.
"""

import platform
import termios
import time

import pexpect
import ptyprocess

from exactmark.running.record import SCREEN, Limit, Ran

READ_CALLS = {  # read, pread64, readv / select, poll, pselect6, ppoll
    "x86_64": ({0, 17, 19}, {7, 23, 270, 271}),
    "aarch64": ({63, 65, 67}, {72, 73}),
}
POLL_SECONDS = 0.005
QUIET_SECONDS = 0.3  # without /proc: a program silent this long is taken as waiting
MOST_OUTPUT = 4 << 20


def _plain_newlines() -> None:
    """In the child, before exec: no `\\r` added before each `\\n`."""
    attributes = termios.tcgetattr(0)
    attributes[1] &= ~termios.ONLCR
    termios.tcsetattr(0, termios.TCSANOW, attributes)


def _blocked_on_input(pid: int):
    """True when the process waits in a read of fd 0 (or select/poll); None when /proc cannot tell."""
    calls = READ_CALLS.get(platform.machine())
    try:
        with open(f"/proc/{pid}/syscall") as file:
            fields = file.read().split()
    except OSError:
        return None
    if calls is None or not fields:
        return None
    if not fields[0].lstrip("-").isdigit():
        return False  # "running"
    number = int(fields[0])
    reads, waits = calls
    return (number in reads and int(fields[1], 16) == 0) or number in waits


def _reads_done(pid: int) -> int:
    """How many read calls the process has completed (a blocked read is not yet counted)."""
    try:
        with open(f"/proc/{pid}/io") as file:
            for line in file:
                if line.startswith("syscr:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return -1


def _descendant(pid: int, depth: int):
    """The first child's first child... `depth` generations below `pid`; None if not there yet."""
    for _ in range(depth):
        try:
            with open(f"/proc/{pid}/task/{pid}/children") as file:
                children = file.read().split()
        except OSError:
            return None
        if not children:
            return None
        pid = int(children[0])
    return pid


class _Spawn(pexpect.spawn):
    """pexpect's spawn, keeping open the descriptors `pass_fds` names (ptyprocess can,
    pexpect does not ask it to): a sandbox hands a run its seccomp filter so."""

    def __init__(self, *args, pass_fds=(), **kwargs):
        self.pass_fds = pass_fds
        super().__init__(*args, **kwargs)

    def _spawnpty(self, args, **kwargs):
        return ptyprocess.PtyProcess.spawn(args, pass_fds=self.pass_fds, **kwargs)


class _Session:
    def __init__(self, argv, cwd, env, timeout, most_output, depth, preexec_fn=None,
                 pass_fds=()):
        self.deadline = time.monotonic() + timeout
        self.most_output = most_output
        self.output = bytearray()

        def before_exec():
            _plain_newlines()
            if preexec_fn is not None:
                preexec_fn()
        self.child = _Spawn(argv[0], list(argv[1:]), cwd=cwd, env=env, echo=True,
                            preexec_fn=before_exec, timeout=timeout, pass_fds=tuple(pass_fds))
        self.child.delaybeforesend = None  # typing waits for the prompt already
        self.reads_before = -1
        self.depth, self.program = depth, None

    def program_pid(self):
        """The program's own process: the spawned one, or `depth` generations below it
        when a wrapper (a sandbox) starts it."""
        if self.program is None:
            self.program = _descendant(self.child.pid, self.depth)
        return self.program

    def drain(self, wait: float) -> bool:
        """Collect what the program wrote; False once the terminal is closed or output overflows."""
        try:
            self.output += self.child.read_nonblocking(1 << 16, timeout=wait)
        except pexpect.TIMEOUT:
            pass
        except pexpect.EOF:
            return False
        return len(self.output) <= self.most_output

    def wait_for_prompt(self) -> bool:
        """Block until the program waits for input after consuming the last line; False if it ended.
        The wait must be seen twice in a row, with no read done and nothing written in between."""
        quiet_since, seen = time.monotonic(), None
        while time.monotonic() < self.deadline:
            size = len(self.output)
            if not self.drain(POLL_SECONDS) or not self.child.isalive():
                return False
            if len(self.output) != size:
                quiet_since = time.monotonic()
            program = self.program_pid()
            if program is None:
                continue
            blocked = _blocked_on_input(program)
            if blocked is None:
                if time.monotonic() - quiet_since >= QUIET_SECONDS:
                    return True
                continue
            reads = _reads_done(program)
            state = (reads, len(self.output)) if blocked and reads > self.reads_before else None
            if state is not None and state == seen:
                self.reads_before = reads
                return True
            seen = state
        return False

    def waits_for_typing(self) -> bool:
        """Whether the program is blocked reading the terminal: the typist always answers
        (a line, or end of input), so it waits on the marker."""
        program = self.program_pid()
        return program is not None and bool(_blocked_on_input(program))

    def type(self, text: bytes) -> None:
        try:
            self.child.send(text)
        except OSError:
            pass  # the program ended meanwhile: finish() reads what it showed

    def end_of_input(self) -> None:
        try:
            self.child.sendeof()
        except OSError:
            pass

    def finish(self, read_past_input: bool = False, typed_all: bool = False) -> Ran:
        """The run's record once it has ended or is stopped: over the output cap, it had
        read all its input if it had read past the last line; not while lines were left
        to type; else that is not known."""
        while time.monotonic() < self.deadline and self.drain(0.05):
            pass
        too_large = len(self.output) > self.most_output
        stopped = too_large or self.child.isalive()
        self.child.close(force=True)
        status = None if stopped else (
            self.child.exitstatus if self.child.signalstatus is None else -self.child.signalstatus)
        limit = Limit.OUTPUT if too_large else Limit.WALL if stopped else None
        return Ran(bytes(self.output[:self.most_output]), status=status, limit=limit,
                   overflowed=SCREEN if too_large else "", read_past_input=read_past_input,
                   read_all_input=True if read_past_input else None if typed_all else False)


def run_in_terminal(argv, stdin: bytes, cwd, env, timeout: float,
                    most_output: int = MOST_OUTPUT, depth: int = 0, started=None,
                    preexec_fn=None, pass_fds=(), watch=None) -> Ran:
    """Type `stdin` line by line at the program's prompts, then end of input (Ctrl-D) at
    every further read; return everything the terminal showed. The program is
    `depth` generations below the process started; `started(pid)` is told that process;
    `preexec_fn` runs in the child before exec, and `pass_fds` stay open in it. Its `watch`
    (a CpuWatch) never counts as idle the time the program waits for what the typist types."""
    session = _Session(argv, cwd, env, timeout, most_output, depth, preexec_fn, pass_fds)
    if watch is not None:
        watch.excuse(session.waits_for_typing)
    if started:
        started(session.child.pid)
    lines = stdin.split(b"\n")
    typed = [line + b"\n" for line in lines[:-1]]
    for line in typed:
        if not session.wait_for_prompt():
            break
        session.type(line)
    else:
        if lines[-1] and session.wait_for_prompt():
            session.type(lines[-1])
            session.end_of_input()  # ends a last line that has no newline
        read_past_input = False
        while session.wait_for_prompt():
            read_past_input = True
            session.end_of_input()
        return session.finish(read_past_input, typed_all=True)
    return session.finish()
