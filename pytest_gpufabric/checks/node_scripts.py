"""The shell runner of the plugin's node scripts: many programs at once in one bounded command, each one's output
framed (``parsers.sections``), so one SSH command per node does what took one per program.

Used by the mesh checks (``mesh_commands``) and by the perftest runs of a node pair (``perf_commands``).
"""

from __future__ import annotations

from pytest_gpufabric.exclusive.leases import guard_exit
from pytest_gpufabric.parsers.sections import MARK
from pytest_gpufabric.transport.beside import STOPPED_EXIT

SCRATCH = "/tmp/gpufabric-node.XXXXXX"  # the script's own folder (mktemp -d): its programs' outputs, removed at exit


def runner(at_once: int) -> str:
    """Shell functions of the node scripts: ``job LABEL -- COMMAND...`` runs a program in the background (at most
    ``at_once``), ``serve LABEL PIDFILE -- COMMAND...`` runs a server in the background, its PID in PIDFILE while it
    runs; each one's output and status go to the script's folder. ``sections`` waits for all and prints them, in
    the order they were started, each after its header (``parsers.sections``); ``stopped`` is then 1 when a
    server ended by SIGTERM (stopped by its PID file).

    A SIGTERM to the script (its time limit, or the run's stop through its PID file: both signal its whole process
    group, programs included) prints the sections of the programs that had ended, whole, and leaves out the others;
    the script then exits ``STOPPED_EXIT`` and removes its folder (and the PID file of its guard, ``exclusive.leases``) (bash runs no EXIT trap on an untrapped signal; the
    signal is ignored from then on, so a second one, as ``timeout`` sends to its group, cannot cut the removal)."""
    return (
        f"d=$(mktemp -d {SCRATCH}) || exit 1; trap 'rm -rf \"$d\"; {guard_exit()}' EXIT; n=0 running=0 stopped=0 printing=0\n"
        f"trap 'trap \"\" TERM; [ $printing = 1 ] || sections ended; exit {STOPPED_EXIT}' TERM\n"
        f"job() {{ local label=$1; shift 2; if [ $running -ge {at_once} ]; then wait -n; running=$((running - 1)); fi\n"
        f'  printf "%s\\n" "$label" > "$d/$n.label"; {{ "$@" > "$d/$n.out" 2>&1; echo $? > "$d/$n.rc"; }} &\n'
        f"  n=$((n + 1)) running=$((running + 1)); }}\n"
        f'serve() {{ local label=$1 pid=$2; shift 3; printf "%s\\n" "$label" > "$d/$n.label"\n'
        f'  {{ "$@" < /dev/null > "$d/$n.out" 2>&1 & echo $! > "$pid"; wait $!; echo $? > "$d/$n.rc"; rm -f "$pid"; }} &\n'
        f"  n=$((n + 1)); }}\n"
        f"sections() {{ [ \"$1\" = ended ] || wait; printing=1; local i label rc lines; for ((i = 0; i < n; i++)); do\n"
        f'  read -r label < "$d/$i.label"; if ! {{ read -r rc < "$d/$i.rc"; }} 2> /dev/null; then [ "$1" != ended ] || continue; rc=255; fi\n'
        f'  [ "$rc" != {STOPPED_EXIT} ] || stopped=1; mapfile -t lines < "$d/$i.out"\n'
        f'  printf "{MARK} %s exit=%s lines=%s\\n" "$label" "$rc" "${{#lines[@]}}"\n'
        f'  [ ${{#lines[@]}} -eq 0 ] || printf "%s\\n" "${{lines[@]}}"; done; }}\n'
    )
