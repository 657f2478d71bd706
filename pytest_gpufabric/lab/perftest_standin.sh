#!/bin/bash
# A STAND-IN for perftest's ib_write_bw in the namespace lab: it measures the pair scheduler, never a fabric.
# Installed on a lab node's PATH by pytest_gpufabric/lab/perftest_standin.py (~/perftest-standin/bin).
# Server (no peer address): listens on its -p port (netcat), waits for one client, reads until the client
# closes, then prints the real captured healthy output. Client: connects to the server's address and port
# (bash's /dev/tcp, routed through the lab's leaf by the rail's subnet), holds the connection for
# ~/perftest-standin/run-s seconds, then prints the real captured output: the failing one ("Failed status 12")
# for a server address listed in ~/perftest-standin/bad-servers, else the healthy one. A port in use or a
# server that is not listening gives perftest's own first lines ("Couldn't listen to port", "Couldn't connect
# to"), exit 1. Starts in milliseconds: bash built-ins and netcat, no interpreter of its own.
set -u
DIR="$HOME/perftest-standin"

print_capture() {  # with built-ins only: no process of its own
    local text
    IFS= read -r -d '' text < "$DIR/captures/$1.txt"
    printf '%s' "$text"
}

port=18515 peer=
while [ $# -gt 0 ]; do
    case "$1" in
        -p) port=$2; shift 2 ;;
        -d|-x|-q|-D|-s|-n|-m|-i|-c|-t|-Q|-l) shift 2 ;;
        -*) shift ;;
        *) peer=$1; shift ;;
    esac
done
if [ -z "$peer" ]; then
    # netcat listens with SO_REUSEPORT: a second server on a port would share it, where perftest's would fail;
    # so a port with an IPv4 listener (state 0A in /proc/net/tcp) is refused first.
    printf -v hex '%04X' "$port"
    if grep -Eq "^ *[0-9]+: [0-9A-F]{8}:$hex [0-9A-F]{8}:[0-9A-F]{4} 0A " /proc/net/tcp; then
        echo "Couldn't listen to port $port"
        exit 1
    fi
    nc -4 -l -d -p "$port" > /dev/null 2>&1 &
    listener=$!
    trap 'kill "$listener" 2>/dev/null; exit 143' TERM  # stopped as perftest is: no listener left behind
    if ! wait "$listener"; then
        echo "Couldn't listen to port $port"
        exit 1
    fi
    print_capture healthy
    exit 0
fi
read -r run_s < "$DIR/run-s"
if ! exec 3<>"/dev/tcp/$peer/$port"; then
    echo "Couldn't connect to $peer:$port"
    exit 1
fi 2>/dev/null
read -r -t "$run_s" -u 3 _  # the server sends nothing: holds the connection run_s seconds
exec 3>&-
while read -r bad; do
    if [ "$bad" = "$peer" ]; then
        print_capture failing
        exit 0
    fi
done < "$DIR/bad-servers"
print_capture healthy
