"""What every run of a case is given, in the marker's sandbox and in a student's checker
alike: its environment and the caps on what it may write and use. Kept apart from the
sandbox, so that the student pack's checker (standard library only) says the same."""

MEMORY_BYTES = 1 << 30  # a run's, at most; less where a container allows less
MOST_OUTPUT = 4 << 20  # of each of stdout and stderr
FILE_BYTES = 16 << 20  # a file a run writes
SAFE_PATH = "/usr/local/bin:/usr/bin:/bin"


def scrubbed_environment(home: str, path: str = SAFE_PATH, **extra) -> dict:
    """Only what a program needs to start: no tokens, no paths of the marker."""
    return {"PATH": path, "HOME": home, "LANG": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1",
            **extra}


def mebibytes(count: int) -> str:
    return f"{count >> 30} GiB" if count >= 1 << 30 else f"{count >> 20} MiB"
