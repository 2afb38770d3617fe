"""A mail server on this machine for the tests of the site's mail: it speaks enough SMTP for Django's SMTP
back-end (EHLO, MAIL, RCPT, DATA, QUIT, no TLS) and keeps each message's bytes as they arrived, or refuses every
recipient with a 550 as a server does for a mailbox that does not exist, or (`silent`) takes the connection and
never answers, as a server that hangs does."""

from __future__ import annotations

import socket
import socketserver
import threading


class SmtpSink:
    def __init__(self, *, refuse_recipients: bool = False, silent: bool = False) -> None:
        self.refuse_recipients, self.silent = refuse_recipients, silent
        self._closing = threading.Event()
        self.messages: list[bytes] = []
        sink = self

        class Handler(socketserver.StreamRequestHandler):
            def handle(self) -> None:
                sink._converse(self.rfile, self.wfile)

        self._server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._server.block_on_close = False
        self.port = self._server.server_address[1]

    @staticmethod
    def closed_port() -> int:
        """A port on which nothing listens (bound, then released)."""
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            return s.getsockname()[1]

    def __enter__(self) -> SmtpSink:
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        self._closing.set()
        self._server.shutdown()
        self._server.server_close()

    def _converse(self, rfile, wfile) -> None:
        if self.silent:
            self._closing.wait(timeout=60)  # then hang up: a test without a timeout fails instead of hanging
            return

        def say(line: str) -> None:
            wfile.write(line.encode() + b"\r\n")
            wfile.flush()

        say("220 sink.test ESMTP")
        while line := rfile.readline():
            verb = line[:4].upper()
            if verb == b"EHLO":
                say("250-sink.test")
                say("250-8BITMIME")
                say("250 SIZE 10000000")
            elif verb == b"RCPT" and self.refuse_recipients:
                say("550 5.1.1 No such mailbox here")
            elif verb == b"DATA":
                say("354 End data with <CR><LF>.<CR><LF>")
                self.messages.append(self._data(rfile))
                say("250 2.0.0 Queued")
            elif verb == b"QUIT":
                say("221 2.0.0 Bye")
                return
            else:  # HELO, MAIL, RCPT, RSET, NOOP
                say("250 2.0.0 OK")

    @staticmethod
    def _data(rfile) -> bytes:
        lines = []
        while (line := rfile.readline()) not in (b".\r\n", b""):
            lines.append(line[1:] if line.startswith(b"..") else line)  # RFC 5321 4.5.2: dot-stuffing undone
        return b"".join(lines)
