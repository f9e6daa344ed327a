"""What the sandbox raises, as its callers tell the cases apart."""


class SandboxError(RuntimeError):
    """A sandbox or a session of it cannot be made or kept: a tool or an interpreter it
    lacks, namespaces asked for and refused, a driver that did not start or has gone. Its
    message says why, in the report's words. A RuntimeError, as the marker has caught it."""


class SessionLost(SandboxError):
    """A session's driver has gone: the case is the marker's error, and a new session
    marks the next one."""


class Stopped(Exception):
    """The marker is stopping: no new run starts. Not a SandboxError: nothing failed, and
    a case it stops is not run, never a marker error. (A full disk, too, is its own:
    exactmark.sandbox.disk.DiskFull, an OSError.)"""
