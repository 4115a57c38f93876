"""`response-schema playground`: a local page to try schemas on model outputs, with the trace (Parser.trace)
and the matched spans highlighted, and the output replayed as a stream (stream/replay.py). Standard library
only, bound to 127.0.0.1, no external assets.

Every parse runs in a forked child process with a time limit, so a catastrophic pattern cannot freeze the
server: the page says when a parse was cut off."""

from __future__ import annotations

import json
import multiprocessing
import webbrowser
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from typing import Any

from . import SchemaError, compile, schemas
from .harness.corpus import corpus_dir, load
from .jsontext import dumps, load_strict
from .stream.replay import replay

TIME_LIMIT = 2.0  # seconds a parse may take
STREAM_TIME_LIMIT = 20.0  # seconds a replay (a stream fed one character at a time) may take
MAX_BODY = 4 * 1024 * 1024


def examples() -> list[dict[str, Any]]:
    """The library's schemas, each with the sample outputs of its corpus group."""
    samples = {
        group.id.removeprefix("fmt."): [test.text for test in group.tests] for group in load([corpus_dir()]).groups
    }
    library = {name: schemas.load(name) for name in schemas.names()}
    return [
        {"name": name, "title": schema["title"], "schema": schema, "outputs": samples.get(name, [])}
        for name, schema in library.items()
    ]


def _run(schema: Any, text: str, answer: Any, streamed: bool) -> None:
    """In the child: compile and trace (or replay the stream), and send the result as JSON text."""
    try:
        parser = compile(schema)
    except SchemaError as exc:
        problems = [{"category": p.category, "path": p.path, "message": p.message} for p in exc.problems]
        answer.send(dumps({"schema_errors": problems}))
        return
    answer.send(dumps(replay(parser, text) if streamed else parser.trace(text)))


def parse_with_limit(schema: Any, text: str, limit: float = TIME_LIMIT, streamed: bool = False) -> dict[str, Any]:
    """The trace of ``text`` (or its stream's replay, or the schema's problems), or ``{"timeout": limit}`` when the
    work took longer."""
    context = multiprocessing.get_context("fork")
    receiver, sender = context.Pipe(duplex=False)
    child = context.Process(target=_run, args=(schema, text, sender, streamed), daemon=True)
    child.start()
    sender.close()
    try:
        if receiver.poll(limit):
            result: dict[str, Any] = json.loads(receiver.recv())
            return result
        return {"timeout": limit}
    except EOFError:
        return {"crash": "the parse ended without a result"}
    finally:
        if child.is_alive():
            child.kill()
        child.join()
        receiver.close()


class Handler(BaseHTTPRequestHandler):
    server_version = "response-schema-playground"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def send(self, status: int, body: bytes, kind: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)

    def refuse(self, status: int, why: str) -> None:
        self.send(status, dumps({"bad_request": why}).encode("utf-8"), "application/json")

    def do_GET(self) -> None:
        if self.path == "/":
            page = resources.files("response_schema").joinpath("playground.html").read_bytes()
            self.send(200, page, "text/html; charset=utf-8")
        elif self.path == "/api/examples":
            self.send(200, dumps(examples()).encode("utf-8"), "application/json")
        elif self.path == "/favicon.ico":  # what every browser asks for on each load: nothing, and no 404
            self.send_response(204)
            self.send_header("Cache-Control", "max-age=86400")
            self.end_headers()
        else:
            self.send(404, b"not found", "text/plain")

    def do_POST(self) -> None:
        if self.path not in ("/api/parse", "/api/stream"):
            self.send(404, b"not found", "text/plain")
            return
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            self.send(400, dumps({"bad_request": "Content-Length is not a number"}).encode("utf-8"), "application/json")
            return
        if not 0 <= length <= MAX_BODY:
            self.send(
                413, dumps({"bad_request": f"the body is over {MAX_BODY} bytes"}).encode("utf-8"), "application/json"
            )
            return
        try:
            request = load_strict(self.rfile.read(length).decode("utf-8"))  # too deep is refused, not a traceback
            if not isinstance(request, dict) or not isinstance(request.get("text"), str) or "schema" not in request:
                raise ValueError("the body must be an object with a schema and a text (a string)")
            schema, text = request["schema"], request["text"]
        except ValueError as exc:  # not UTF-8, not JSON, too deep, the wrong shape
            self.send(400, dumps({"bad_request": str(exc)}).encode("utf-8"), "application/json")
            return
        streamed = self.path == "/api/stream"
        limit = STREAM_TIME_LIMIT if streamed else TIME_LIMIT
        self.send(200, dumps(parse_with_limit(schema, text, limit, streamed)).encode("utf-8"), "application/json")


def serve(port: int, open_browser: bool) -> int:
    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    url = f"http://127.0.0.1:{server.server_address[1]}/"
    print(f"response-schema playground on {url} (Ctrl-C to stop)", flush=True)
    if open_browser:
        webbrowser.open(url)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0
