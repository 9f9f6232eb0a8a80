# Shared by the benchmark scripts that download from their own nginx (source it, do not run it):
#
#   . "$(dirname "${BASH_SOURCE[0]}")/private-nginx.sh"
#   start_private_nginx "$work" /full/1g.bin 'location /full/ { alias WORK/www/; }'
#   ... "http://127.0.0.1:$port/full/1g.bin" ...
#
# start_private_nginx WORK PROBE LOCATIONS [CONNECTIONS] starts one nginx worker with its
# prefix, pid file and logs in WORK, on a free loopback port (set in $port), serving the
# `location` blocks given, with at most CONNECTIONS connections (64 by default, the listening
# socket included), and waits until PROBE answers a one-byte range. stop_private_nginx WORK
# stops it by its process id. median reads numbers from standard input and prints their median.

start_private_nginx() {
    local work=$1 probe=$2 locations=$3 connections=${4:-64} wait
    chmod 755 "$work"  # nginx's worker runs as another user
    mkdir -p "$work/logs"
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    cat >"$work/nginx.conf" <<CONF
worker_processes 1;
pid $work/nginx.pid;
error_log $work/logs/error.log;
events { worker_connections $connections; }
http {
    access_log off;
    sendfile on;
    server {
        listen 127.0.0.1:$port;
        $locations
    }
}
CONF
    nginx -c "$work/nginx.conf" -p "$work"
    for ((wait = 0; wait < 100; wait++)); do
        curl -sf -o /dev/null -r 0-0 "http://127.0.0.1:$port$probe" && return 0
        sleep 0.1
    done
    echo "nginx did not serve $probe; see $work/logs/error.log" >&2
    return 1
}

stop_private_nginx() {
    [[ -s $1/nginx.pid ]] && kill "$(cat "$1/nginx.pid")" 2>/dev/null || true
}

median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }
