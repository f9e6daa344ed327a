"""The last step before a submission's code runs, inside the sandbox.

A shell script, run as `/bin/sh -c LAUNCHER launcher HOME SNAPSHOT FILES UID
LIMIT... -- ARGV...`, started in "/". As root it fills the run's home from the
snapshot (plain files and folders, made by the marker) and from FILES (a folder
of the marker's own: the case's files, or "" for none), and hands the home to
the run's throwaway user UID (-1: stay who we are), before any code of the
submission has run; then util-linux's `prlimit` sets the limits and `setpriv`
drops to the user for good (no groups, no new privileges) and becomes ARGV.
Only programs of the system run here, each started once: a second interpreter
would cost a run tens of milliseconds, which a class of students pays per case.
"""

LAUNCHER = """set -f
home=$1 snapshot=$2 files=$3 uid=$4
shift 4
limits=
while [ "$1" != -- ]; do limits="$limits $1"; shift; done
shift
if [ -n "$snapshot" ]; then
    cp -R --preserve=mode,timestamps -- "$snapshot/." "$home/" || exit 125
    if [ -n "$files" ]; then cp -R --preserve=mode,timestamps -- "$files/." "$home/" || exit 125; fi
    if [ "$uid" -ge 0 ]; then chown -R -- "$uid:$uid" "$home" || exit 125; fi
fi
cd -- "$home" || exit 125
if [ "$uid" -ge 0 ]; then
    exec prlimit $limits -- setpriv --reuid="$uid" --regid="$uid" --clear-groups --no-new-privs -- "$@"
fi
exec prlimit $limits -- "$@"
"""
LAUNCHER_FAILED = 125  # the launcher could not set the run up: the marker's fault, not the run's
TOOLS = ("cp", "chown", "prlimit", "setpriv")


def argv(home: str, snapshot: str, files: str, uid: int, limits: list, command: list) -> list:
    """The launcher's command line: `limits` are (RLIMIT_NAME, value) pairs."""
    options = [f"--{name.removeprefix('RLIMIT_').lower()}={value}" for name, value in limits]
    return ["/bin/sh", "-c", LAUNCHER, "launcher", home, snapshot or "", files or "", str(uid),
            *options, "--", *command]
