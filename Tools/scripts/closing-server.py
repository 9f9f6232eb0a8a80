#!/usr/bin/env python3
"""A server that reads each request's head, then closes while the client still sends its body.

For the engine's signal-policy tests: the server shuts its side down (a FIN) with the body
unread, so the client's next bytes meet a reset, and the write after that fails with EPIPE,
the write that raises SIGPIPE unless the client sends with MSG_NOSIGNAL. With a certificate it
speaks TLS (ALPN http/1.1 only, so the client's TLS records go straight onto the socket rather
than into an HTTP/2 stream the server could reset on its own); without, plain HTTP.

Usage: closing-server.py PORT-FILE [CERT.pem KEY.pem]
Writes the port it listens on (127.0.0.1, chosen by the kernel) to PORT-FILE as one line once
it listens, then serves until it is terminated (by its process id).
"""

import os
import socket
import ssl
import sys
import threading
from typing import Optional


def serve(connection: socket.socket, context: Optional[ssl.SSLContext]) -> None:
    try:
        stream = context.wrap_socket(connection, server_side=True) if context else connection
        received = b""
        while b"\r\n\r\n" not in received:
            chunk = stream.recv(65536)
            if not chunk:
                break
            received += chunk
        stream.shutdown(socket.SHUT_WR)
        stream.close()
    except (OSError, ssl.SSLError) as error:
        print(f"closing-server: {error}", file=sys.stderr)
    finally:
        connection.close()


def main() -> None:
    if len(sys.argv) not in (2, 4):
        sys.exit("usage: closing-server.py PORT-FILE [CERT.pem KEY.pem]")
    context = None
    if len(sys.argv) == 4:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(sys.argv[2], sys.argv[3])
        context.set_alpn_protocols(["http/1.1"])
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    # Written whole under another name, then renamed: a reader never sees half a number.
    port_file = sys.argv[1]
    with open(port_file + ".tmp", "w") as file:
        file.write(f"{listener.getsockname()[1]}\n")
    os.replace(port_file + ".tmp", port_file)
    while True:
        connection, _ = listener.accept()
        threading.Thread(target=serve, args=(connection, context), daemon=True).start()


if __name__ == "__main__":
    main()
