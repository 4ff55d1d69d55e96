"""The tools of ``broken_reply_server.py`` (or of another module beside it with the same
``reply(message)`` function) over streamable HTTP (JSON responses, written by hand with the
standard library): ``python broken_reply_http_server.py PORT [MODULE]`` serves ``/mcp``."""

from __future__ import annotations

import importlib
import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

reply = importlib.import_module(sys.argv[2] if len(sys.argv) > 2 else "broken_reply_server").reply


class Handler(BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # quiet
        pass

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("content-length") or 0))
        answer = reply(json.loads(body))
        if answer is None:  # a notification
            self.send_response(202)
            self.end_headers()
            return
        data = answer.encode("utf-8")
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:  # no stream of server messages
        self.send_response(405)
        self.end_headers()

    def do_DELETE(self) -> None:
        self.send_response(200)
        self.end_headers()


if __name__ == "__main__":
    server = ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler)
    print("ready", flush=True)
    server.serve_forever()
