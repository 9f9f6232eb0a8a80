#!/usr/bin/env bash
#
# The loopback servers the integration tests talk to.
#
#   Tools/scripts/test-servers.sh start   start them (stopping any earlier ones first)
#   Tools/scripts/test-servers.sh stop    stop them; does nothing when none run
#   Tools/scripts/test-servers.sh env     print the environment file
#
# `start` runs, each on a free port of 127.0.0.1 chosen at start time:
#
#   nginx   a private instance with its own prefix, configuration and pid file under
#           .test-servers/nginx: HTTP/1.1 in cleartext on one port, HTTP/2 over TLS on
#           another, with a certificate for 127.0.0.1 and localhost signed by a test CA made
#           here. It serves a document root of fixtures (small.bin, 200 bytes; 1m.bin, 1 MiB)
#           with byte ranges, ETag and Last-Modified, and `/upload`, which reads and discards
#           a request body of any size and answers 200 "ok".
#           The same locations also answer on a Unix domain socket, .test-servers/nginx/nginx.sock.
#   httpbin gunicorn serving httpbin, for protocol conformance (/get, /gzip, /brotli, ...).
#   proxies three tinyproxy instances (an open HTTP proxy; one that asks for Basic credentials
#           parley / proxy-secret; one that refuses CONNECT to any port but 443) and a microsocks
#           SOCKS5 proxy whose outgoing connections leave from 127.0.0.2, so that a server sees
#           which requests came through it.
#
# It then writes .test-servers/env, for `set -a; . .test-servers/env; set +a`:
#
#   PARLEY_NGINX_URL       http://127.0.0.1:PORT      nginx, HTTP/1.1 in cleartext
#   PARLEY_NGINX_TLS_URL   https://127.0.0.1:PORT     nginx, HTTP/2 (ALPN h2) or 1.1 over TLS
#   PARLEY_TEST_CA         absolute path of the CA certificate (PEM) that signed nginx's
#   PARLEY_NGINX_ROOT      absolute path of nginx's document root; tests may add files to it
#   PARLEY_HTTPBIN_URL     http://127.0.0.1:PORT      httpbin
#   PARLEY_NGINX_SOCKET    absolute path of nginx's Unix domain socket (same locations)
#   PARLEY_PROXY_URL       http://127.0.0.1:PORT      tinyproxy, open (adds a Via field)
#   PARLEY_PROXY_LOG       absolute path of that proxy's log (CONNECT lines among others)
#   PARLEY_AUTH_PROXY_URL  http://127.0.0.1:PORT      tinyproxy, Basic credentials required
#   PARLEY_AUTH_PROXY_USER, PARLEY_AUTH_PROXY_PASSWORD  those credentials
#   PARLEY_REFUSING_PROXY_URL http://127.0.0.1:PORT   tinyproxy, CONNECT allowed to port 443 only
#   PARLEY_SOCKS_URL       socks5h://127.0.0.1:PORT   microsocks, connecting out from 127.0.0.2
#
# nginx runs one worker process so that benchmarks compare clients against the same,
# single-threaded server. Servers are stopped by the process ids recorded at start, never
# by name, so a system nginx or another checkout's servers are left alone.

set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
state="$repo/.test-servers"
env_file="$state/env"
nginx_dir="$state/nginx"
httpbin_dir="$state/httpbin"
tls_dir="$state/tls"
proxy_dir="$state/proxies"
proxy_names=(open auth refusing)
proxy_user=parley
proxy_password=proxy-secret
docroot="$state/www"
startup_timeout=30  # seconds for each server to answer its first request

log() { printf 'test-servers: %s\n' "$*"; }
die() { printf 'test-servers: error: %s\n' "$*" >&2; exit 1; }

# MARK: - Processes

# Whether process $1 is alive and its command line contains $2: guards against a pid that
# was reused by an unrelated process since it was recorded.
is_ours() {
    local pid=$1 marker=$2
    [[ $pid =~ ^[0-9]+$ ]] && [[ -r /proc/$pid/cmdline ]] || return 1
    tr '\0' ' ' <"/proc/$pid/cmdline" | grep -qF -- "$marker"
}

children_of() {
    ps -o pid= --ppid "$1" 2>/dev/null | tr -d ' ' || true
}

# Stops process $1 (if it is ours, see is_ours) with signal $3, then its children; waits up
# to 10 s before SIGKILL.
stop_process() {
    local pid=$1 marker=$2 signal=$3 name=$4
    if ! is_ours "$pid" "$marker"; then
        return 0
    fi
    local children
    children="$(children_of "$pid")"
    kill "-$signal" "$pid" 2>/dev/null || true
    local deadline=$((SECONDS + 10))
    while kill -0 "$pid" 2>/dev/null && ((SECONDS < deadline)); do
        # A zombie of ours (the shell that started it has gone) counts as stopped.
        [[ $(ps -o stat= -p "$pid" 2>/dev/null) == Z* ]] && break
        sleep 0.1
    done
    if kill -0 "$pid" 2>/dev/null && [[ $(ps -o stat= -p "$pid" 2>/dev/null) != Z* ]]; then
        log "$name ($pid) did not stop within 10 s; killing it"
        kill -KILL "$pid" 2>/dev/null || true
    fi
    # Workers normally leave with their parent; any that did not are killed by their own pid.
    local child
    for child in $children; do
        if kill -0 "$child" 2>/dev/null; then
            sleep 1
            kill -KILL "$child" 2>/dev/null || true
        fi
    done
    log "stopped $name ($pid)"
}

stop() {
    local pid
    if [[ -f $nginx_dir/nginx.pid ]]; then
        pid="$(cat "$nginx_dir/nginx.pid")"
        # SIGTERM: nginx's fast shutdown. The marker is the prefix nginx was started with.
        stop_process "$pid" "$nginx_dir/" TERM nginx
        rm -f "$nginx_dir/nginx.pid"
    fi
    if [[ -f $httpbin_dir/gunicorn.pid ]]; then
        pid="$(cat "$httpbin_dir/gunicorn.pid")"
        # SIGQUIT: gunicorn's quick shutdown (SIGTERM waits for requests in flight).
        stop_process "$pid" "$httpbin_dir/gunicorn.pid" QUIT httpbin
        rm -f "$httpbin_dir/gunicorn.pid"
    fi
    local name
    for name in "${proxy_names[@]}"; do
        if [[ -f $proxy_dir/$name.pid ]]; then
            pid="$(cat "$proxy_dir/$name.pid")"
            # The marker is the configuration file tinyproxy was started with.
            stop_process "$pid" "$proxy_dir/$name.conf" TERM "tinyproxy ($name)"
            rm -f "$proxy_dir/$name.pid"
        fi
    done
    if [[ -f $proxy_dir/socks.pid ]]; then
        pid="$(cat "$proxy_dir/socks.pid")"
        stop_process "$pid" microsocks TERM microsocks
        rm -f "$proxy_dir/socks.pid"
    fi
    rm -f "$env_file"
}

# MARK: - Start

free_ports() {
    # Binds all of them at once so that they differ, then releases them for the servers.
    python3 - "$1" <<'PY'
import socket, sys
sockets = []
for _ in range(int(sys.argv[1])):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind(("127.0.0.1", 0))
    sockets.append(s)
print(" ".join(str(s.getsockname()[1]) for s in sockets))
PY
}

make_certificates() {
    rm -rf "$tls_dir"
    mkdir -p "$tls_dir"
    (
        cd "$tls_dir"
        openssl req -x509 -newkey rsa:2048 -nodes -days 30 -sha256 \
            -keyout ca.key -out ca.pem -subj "/CN=Parley Test CA" \
            -addext "basicConstraints=critical,CA:TRUE" \
            -addext "keyUsage=critical,keyCertSign,cRLSign" 2>/dev/null
        openssl req -newkey rsa:2048 -nodes -sha256 \
            -keyout server.key -out server.csr -subj "/CN=localhost" 2>/dev/null
        cat >server.ext <<EXT
basicConstraints=critical,CA:FALSE
keyUsage=critical,digitalSignature,keyEncipherment
extendedKeyUsage=serverAuth
subjectAltName=IP:127.0.0.1,DNS:localhost
EXT
        openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial \
            -days 30 -sha256 -extfile server.ext -out server.pem 2>/dev/null
        openssl verify -CAfile ca.pem server.pem >/dev/null
    ) || die "could not make the test certificates with openssl"
}

make_docroot() {
    mkdir -p "$docroot"
    [[ $(stat -c %s "$docroot/small.bin" 2>/dev/null) == 200 ]] || head -c 200 /dev/urandom >"$docroot/small.bin"
    [[ $(stat -c %s "$docroot/1m.bin" 2>/dev/null) == 1048576 ]] || head -c 1048576 /dev/urandom >"$docroot/1m.bin"
}

write_nginx_config() {
    local http_port=$1 tls_port=$2 user_line="" echo_module=/usr/lib/nginx/modules/ngx_http_echo_module.so
    [[ -f $echo_module ]] || die "nginx's echo module is missing ($echo_module): run Tools/scripts/setup.sh"
    # A root master would run its worker as `nobody`, which may not be allowed into the
    # checkout (a clone under /root, say); the worker runs as the user who started it.
    if [[ $(id -u) -eq 0 ]]; then
        user_line="user $(id -un) $(id -gn);"
    fi
    mkdir -p "$nginx_dir/conf" "$nginx_dir/logs" "$nginx_dir/temp"
    cat >"$nginx_dir/conf/nginx.conf" <<CONF
# Written by Tools/scripts/test-servers.sh at each start; edit the script, not this file.
$user_line
# echo_read_request_body, for /upload (Debian's libnginx-mod-http-echo, from nginx-light).
load_module $echo_module;

# One worker: benchmarks compare clients against the same single-threaded server.
worker_processes 1;
pid $nginx_dir/nginx.pid;
error_log $nginx_dir/logs/error.log error;

events {
    worker_connections 4096;
}

http {
    access_log off;
    sendfile on;
    tcp_nopush on;
    tcp_nodelay on;

    # Reuse connections for as long as a test or a benchmark wants. For HTTP/2 streams
    # keepalive_requests applies too (it replaced http2_max_requests in nginx 1.19.7).
    keepalive_timeout 120s;
    keepalive_requests 1000000;

    types {
        application/octet-stream bin;
        application/json json;
        text/plain txt;
        text/html html;
    }
    default_type application/octet-stream;

    client_body_temp_path $nginx_dir/temp/client_body;
    proxy_temp_path $nginx_dir/temp/proxy;
    fastcgi_temp_path $nginx_dir/temp/fastcgi;
    uwsgi_temp_path $nginx_dir/temp/uwsgi;
    scgi_temp_path $nginx_dir/temp/scgi;

    server {
        listen 127.0.0.1:$http_port;
        server_name localhost 127.0.0.1;
        include $nginx_dir/conf/locations.conf;
    }

    server {
        listen unix:$nginx_dir/nginx.sock;
        server_name localhost 127.0.0.1;
        include $nginx_dir/conf/locations.conf;
    }

    server {
        listen 127.0.0.1:$tls_port ssl http2;
        server_name localhost 127.0.0.1;
        ssl_certificate $tls_dir/server.pem;
        ssl_certificate_key $tls_dir/server.key;
        ssl_protocols TLSv1.2 TLSv1.3;
        include $nginx_dir/conf/locations.conf;
    }
}
CONF
    cat >"$nginx_dir/conf/locations.conf" <<CONF
root $docroot;

# Static files, with byte ranges, ETag and Last-Modified (nginx's defaults).
location / {
}

# Takes a body of any size with any method, reads all of it, then answers 200 "ok".
# Reading first matters: a plain `return 200` answers at once and discards the rest, and
# over HTTP/2 libcurl 7.88.1 then waits forever for window to send the remainder. Bodies
# over client_body_buffer_size pass through a temporary file that nginx deletes at once.
location = /upload {
    client_max_body_size 0;
    client_body_buffer_size 1m;
    default_type text/plain;
    echo_read_request_body;
    echo "ok";
}
CONF
}

start_nginx() {
    local nginx_bin
    nginx_bin="$(command -v nginx || echo /usr/sbin/nginx)"
    [[ -x $nginx_bin ]] || die "nginx is not installed: run Tools/scripts/setup.sh"
    : >"$nginx_dir/logs/error.log"
    "$nginx_bin" -p "$nginx_dir/" -c "$nginx_dir/conf/nginx.conf" -e "$nginx_dir/logs/error.log" -t -q \
        >>"$nginx_dir/logs/error.log" 2>&1 || return 1
    # nginx daemonizes itself and writes its master's pid to nginx.pid.
    "$nginx_bin" -p "$nginx_dir/" -c "$nginx_dir/conf/nginx.conf" -e "$nginx_dir/logs/error.log" \
        </dev/null >>"$nginx_dir/logs/error.log" 2>&1
}

start_httpbin() {
    local port=$1
    mkdir -p "$httpbin_dir"
    : >"$httpbin_dir/gunicorn.log"
    # --daemon: gunicorn detaches from this shell and writes its arbiter's pid to gunicorn.pid.
    # Two workers of four threads: a slow endpoint (/delay) does not hold up the others.
    python3 -m gunicorn --daemon \
        --bind "127.0.0.1:$port" \
        --pid "$httpbin_dir/gunicorn.pid" \
        --workers 2 --threads 4 \
        --graceful-timeout 5 \
        --no-control-socket \
        --error-logfile "$httpbin_dir/gunicorn.log" \
        --chdir "$httpbin_dir" \
        httpbin:app \
        </dev/null >>"$httpbin_dir/gunicorn.log" 2>&1
}

# Starts tinyproxy $1 (open, auth or refusing) on port $2; it daemonizes and writes its pid file.
start_proxy() {
    local name=$1 port=$2 extra=""
    mkdir -p "$proxy_dir"
    case $name in
    auth) extra="BasicAuth $proxy_user $proxy_password" ;;
    refusing) extra="ConnectPort 443" ;;
    esac
    # With no ConnectPort line, tinyproxy allows CONNECT to every port.
    cat >"$proxy_dir/$name.conf" <<CONF
# Written by Tools/scripts/test-servers.sh at each start; edit the script, not this file.
Port $port
Listen 127.0.0.1
Timeout 60
PidFile "$proxy_dir/$name.pid"
LogFile "$proxy_dir/$name.log"
LogLevel Info
MaxClients 256
Allow 127.0.0.1
$extra
CONF
    : >"$proxy_dir/$name.log"
    tinyproxy -c "$proxy_dir/$name.conf" </dev/null >>"$proxy_dir/$name.log" 2>&1
}

# Starts microsocks on port $1, connecting out from 127.0.0.2; it stays in the foreground, so
# its pid is recorded here.
start_socks() {
    local port=$1
    mkdir -p "$proxy_dir"
    : >"$proxy_dir/socks.log"
    nohup microsocks -i 127.0.0.1 -p "$port" -b 127.0.0.2 </dev/null >>"$proxy_dir/socks.log" 2>&1 &
    echo $! >"$proxy_dir/socks.pid"
}

# Waits until `curl ARGS...` succeeds, at most $startup_timeout seconds, and gives up
# early if the server whose pid is in $pid_file has exited (a daemon writes that file a
# moment after it starts, and removes it when it exits).
wait_for() {
    local name=$1 log_file=$2 pid_file=$3
    shift 3
    local started=$SECONDS deadline=$((SECONDS + startup_timeout)) pid problem=""
    until curl --silent --show-error --fail --output /dev/null --max-time 2 "$@" 2>/dev/null; do
        pid="$(cat "$pid_file" 2>/dev/null || true)"
        if [[ -n $pid ]] && { ! kill -0 "$pid" 2>/dev/null || [[ $(ps -o stat= -p "$pid") == Z* ]]; }; then
            problem="exited"
        elif [[ -z $pid ]] && ((SECONDS - started >= 5)); then
            problem="exited, or never wrote $pid_file"
        elif ((SECONDS >= deadline)); then
            problem="did not answer within $startup_timeout s"
        fi
        if [[ -n $problem ]]; then
            printf 'test-servers: error: %s %s. Its log, %s:\n' "$name" "$problem" "$log_file" >&2
            sed 's/^/    /' "$log_file" >&2 || true
            curl --silent --show-error --fail --output /dev/null --max-time 2 "$@" >&2 || true
            return 1
        fi
        sleep 0.2
    done
}

start() {
    stop
    command -v curl >/dev/null 2>&1 || die "curl is not installed: run Tools/scripts/setup.sh"
    python3 -c 'import httpbin, gunicorn' 2>/dev/null || die "httpbin or gunicorn is missing: run Tools/scripts/setup.sh"
    command -v tinyproxy >/dev/null 2>&1 || die "tinyproxy is not installed: run Tools/scripts/setup.sh"
    command -v microsocks >/dev/null 2>&1 || die "microsocks is not installed: run Tools/scripts/setup.sh"
    mkdir -p "$state"
    make_certificates
    make_docroot

    # Free ports are chosen just before the servers bind them; if another process takes
    # one in between, the servers are started again on new ports.
    local attempt ports http_port tls_port httpbin_port open_port auth_port refusing_port socks_port started=false
    for attempt in 1 2 3; do
        ports="$(free_ports 7)"
        read -r http_port tls_port httpbin_port open_port auth_port refusing_port socks_port <<<"$ports"
        write_nginx_config "$http_port" "$tls_port"
        if start_nginx && start_httpbin "$httpbin_port" && start_proxy open "$open_port" &&
            start_proxy auth "$auth_port" && start_proxy refusing "$refusing_port" && start_socks "$socks_port"; then
            started=true
            break
        fi
        log "attempt $attempt failed (a port taken?); retrying"
        cat "$nginx_dir/logs/error.log" "$httpbin_dir/gunicorn.log" >&2 || true
        stop
    done
    $started || { stop; die "the servers did not start; logs are above"; }

    local nginx_log="$nginx_dir/logs/error.log" nginx_pid="$nginx_dir/nginx.pid"
    if ! wait_for nginx "$nginx_log" "$nginx_pid" "http://127.0.0.1:$http_port/small.bin" ||
        ! wait_for "nginx (TLS)" "$nginx_log" "$nginx_pid" --cacert "$tls_dir/ca.pem" "https://127.0.0.1:$tls_port/small.bin" ||
        ! wait_for httpbin "$httpbin_dir/gunicorn.log" "$httpbin_dir/gunicorn.pid" "http://127.0.0.1:$httpbin_port/get" ||
        ! wait_for "nginx (Unix socket)" "$nginx_log" "$nginx_pid" --unix-socket "$nginx_dir/nginx.sock" "http://localhost/small.bin" ||
        ! wait_for "tinyproxy (open)" "$proxy_dir/open.log" "$proxy_dir/open.pid" --noproxy "" -x "http://127.0.0.1:$open_port" "http://127.0.0.1:$httpbin_port/get" ||
        ! wait_for "tinyproxy (auth)" "$proxy_dir/auth.log" "$proxy_dir/auth.pid" --noproxy "" -x "http://127.0.0.1:$auth_port" --proxy-user "$proxy_user:$proxy_password" "http://127.0.0.1:$httpbin_port/get" ||
        ! wait_for "tinyproxy (refusing)" "$proxy_dir/refusing.log" "$proxy_dir/refusing.pid" --noproxy "" -x "http://127.0.0.1:$refusing_port" "http://127.0.0.1:$httpbin_port/get" ||
        ! wait_for microsocks "$proxy_dir/socks.log" "$proxy_dir/socks.pid" --noproxy "" -x "socks5h://127.0.0.1:$socks_port" "http://127.0.0.1:$httpbin_port/get"; then
        stop
        die "a test server did not come up"
    fi

    cat >"$env_file.tmp" <<ENV
# Written by Tools/scripts/test-servers.sh start; read with: set -a; . $env_file; set +a
PARLEY_NGINX_URL=http://127.0.0.1:$http_port
PARLEY_NGINX_TLS_URL=https://127.0.0.1:$tls_port
PARLEY_TEST_CA=$tls_dir/ca.pem
PARLEY_NGINX_ROOT=$docroot
PARLEY_HTTPBIN_URL=http://127.0.0.1:$httpbin_port
PARLEY_NGINX_SOCKET=$nginx_dir/nginx.sock
PARLEY_PROXY_URL=http://127.0.0.1:$open_port
PARLEY_PROXY_LOG=$proxy_dir/open.log
PARLEY_AUTH_PROXY_URL=http://127.0.0.1:$auth_port
PARLEY_AUTH_PROXY_USER=$proxy_user
PARLEY_AUTH_PROXY_PASSWORD=$proxy_password
PARLEY_REFUSING_PROXY_URL=http://127.0.0.1:$refusing_port
PARLEY_SOCKS_URL=socks5h://127.0.0.1:$socks_port
ENV
    mv "$env_file.tmp" "$env_file"
    log "nginx (pid $(cat "$nginx_dir/nginx.pid")) on http://127.0.0.1:$http_port and https://127.0.0.1:$tls_port"
    log "httpbin (pid $(cat "$httpbin_dir/gunicorn.pid")) on http://127.0.0.1:$httpbin_port"
    log "proxies: tinyproxy on $open_port (open), $auth_port (auth), $refusing_port (refusing); microsocks on $socks_port"
    log "environment in $env_file"
}

case "${1-}" in
start) start ;;
stop) stop ;;
env)
    [[ -f $env_file ]] || die "no test servers are running: run '$0 start'"
    cat "$env_file"
    ;;
*)
    printf 'usage: %s start|stop|env\n' "$0" >&2
    exit 2
    ;;
esac
