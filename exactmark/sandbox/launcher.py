"""The last step before a submission's code runs, inside the sandbox.

A shell script, run as `/bin/sh -c LAUNCHER launcher HOME UID LIMIT... -- ARGV...`,
started in "/", with the snapshot and the case's files named by the environment
(MARK_SNAPSHOT, MARK_FILES: "" for none), which it removes before the run starts, so
that no path of the marker's stands on a command line or in an environment a run can
read. Under namespaces, as root, it fills the run's home (a tmpfs of the sandbox's) from
the snapshot (plain files and folders, made by the marker) and from the case's files (a
folder of the marker's own), and hands it to the run's throwaway user UID (-1: stay who
we are), before any code of the submission has run (in the fallback the marker has done
that itself: MARK_SNAPSHOT is "", and a home it could not fill is its own error, never
a status a program could give too); then util-linux's `prlimit` sets the limits and
`setpriv` drops to the user for good (no groups, no new privileges) and becomes ARGV.
Only programs of the system run here, each started once: a second interpreter would
cost a run tens of milliseconds, which a class of students pays per case.
"""

LAUNCHER = """set -f
home=$1 uid=$2 snapshot=$MARK_SNAPSHOT files=$MARK_FILES
unset MARK_SNAPSHOT MARK_FILES
shift 2
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
TOOLS = ("cp", "chown", "prlimit", "setpriv")


SNAPSHOT_VARIABLE, FILES_VARIABLE = "MARK_SNAPSHOT", "MARK_FILES"


def argv(home: str, uid: int, limits: list, command: list) -> list:
    """The launcher's command line: `limits` are (RLIMIT_NAME, value) pairs, a value an
    int or a (soft, hard) pair."""
    options = [f"--{name.removeprefix('RLIMIT_').lower()}="
               f"{':'.join(map(str, value)) if isinstance(value, tuple) else value}"
               for name, value in limits]
    return ["/bin/sh", "-c", LAUNCHER, "launcher", home, str(uid), *options, "--",
            *command]


def environment(snapshot: str, files: str) -> dict:
    """What the launcher reads of where the home comes from, and unsets."""
    return {SNAPSHOT_VARIABLE: snapshot or "", FILES_VARIABLE: files or ""}
