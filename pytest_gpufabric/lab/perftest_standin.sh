#!/bin/sh
# A STAND-IN for perftest's ib_write_bw in the namespace lab: it measures the pair scheduler, never a fabric.
# Installed on a lab node's PATH by pytest_gpufabric/lab/perftest_standin.py (~/perftest-standin/bin).
# Server (no peer address): listens on its -p port, waits for one client, reads until the client closes,
# then prints the real captured healthy output. Client: connects to the server's address and port from its
# --bind_source_ip address (through the lab's leaf), holds the connection for ~/perftest-standin/run-s
# seconds, then prints the real captured output: the failing one ("Failed status 12") for a server address
# listed in ~/perftest-standin/bad-servers, else the healthy one. A port in use or a server that is not
# listening gives perftest's own first lines ("Couldn't listen to port", "Couldn't connect to"), exit 1.
# Starts in milliseconds (sh and perl-base, no interpreter start-up of its own).
set -eu
DIR="$HOME/perftest-standin"
port=18515 peer= source=
while [ $# -gt 0 ]; do
    case "$1" in
        -p) port=$2; shift 2 ;;
        -d|-x|-q|-D|-s|-n|-m|-i|-c|-t|-Q|-l) shift 2 ;;
        --bind_source_ip=*) source=${1#*=}; shift ;;
        -*) shift ;;
        *) peer=$1; shift ;;
    esac
done
if [ -z "$peer" ]; then
    perl -MIO::Socket::INET -e '
        my $server = IO::Socket::INET->new(LocalPort => $ARGV[0], Listen => 1, ReuseAddr => 1, Timeout => 300)
            or do { print "Couldn'\''t listen to port $ARGV[0]\n"; exit 1 };
        my $client = $server->accept or do { print "No client connected in 300 s\n"; exit 1 };
        1 while sysread($client, my $buffer, 4096);' "$port"
    exec cat "$DIR/captures/healthy.txt"
fi
read -r run_s < "$DIR/run-s"
perl -MIO::Socket::INET -e '
    my %local = $ARGV[3] ne "" ? (LocalAddr => $ARGV[3]) : ();
    my $socket = IO::Socket::INET->new(PeerAddr => $ARGV[0], PeerPort => $ARGV[1], Timeout => 5, %local)
        or do { print "Couldn'\''t connect to $ARGV[0]:$ARGV[1]\n"; exit 1 };
    select(undef, undef, undef, $ARGV[2]);' "$peer" "$port" "$run_s" "$source"
if grep -qxF "$peer" "$DIR/bad-servers"; then
    exec cat "$DIR/captures/failing.txt"
fi
exec cat "$DIR/captures/healthy.txt"
