"""The playground's server, without a browser (tests/browser drives the page in Chromium)."""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from http.server import ThreadingHTTPServer
from typing import Any

import pytest

from response_schema import schemas
from response_schema.playground import Handler, parse_with_limit


@pytest.fixture(scope="module")
def base() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def post(base: str, body: Any, path: str = "/api/parse") -> tuple[int, Any]:
    request = urllib.request.Request(f"{base}{path}", data=json.dumps(body).encode(), method="POST")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def test_the_page_and_the_examples(base: str) -> None:
    with urllib.request.urlopen(f"{base}/", timeout=30) as response:
        page = response.read().decode()
    assert "<title>response-schema playground</title>" in page
    assert "src=" not in page and "href=" not in page  # no external assets
    with urllib.request.urlopen(f"{base}/api/examples", timeout=30) as response:
        examples = json.loads(response.read())
    assert len(examples) == len(schemas.names()) and all(example["outputs"] for example in examples)


def test_parse_gives_the_trace_or_the_schema_problems(base: str) -> None:
    status, result = post(base, {"schema": {"type": "string", "x-regex": "(a)"}, "text": "xa"})
    assert status == 200 and result["value"] == "a" and result["root"]["stages"][0]["match"]["span"] == [1, 2]
    status, result = post(base, {"schema": {"type": "nope"}, "text": ""})
    assert result == {
        "schema_errors": [{"category": "invalid-keyword", "path": "/type", "message": "unsupported type 'nope'"}]
    }
    assert post(base, {"schema": {}})[0] == 400
    assert post(base, {"schema": {}, "text": 5})[0] == 400


def test_stream_gives_the_replay(base: str) -> None:  # the playground's Replay
    schema = {"type": "object", "properties": {"content": {"type": "string", "x-regex": "^(.*?)\\s*(?:<eos>|$)"}}}
    status, result = post(base, {"schema": schema, "text": "Hi <eos>"}, "/api/stream")
    assert status == 200 and result["end"] == {"value": {"content": "Hi"}}
    assert result["steps"][1]["sent"] == {"content": "Hi"} and "held" not in result["steps"][1]
    assert post(base, {"schema": {"type": "nope"}, "text": ""}, "/api/stream")[1]["schema_errors"]


def test_a_catastrophic_pattern_is_cut_off() -> None:
    result = parse_with_limit({"type": "string", "x-regex": "(?:a+)+(b)$"}, "a" * 40 + "c", limit=0.5)
    assert result == {"timeout": 0.5}
    assert parse_with_limit({"type": "string"}, "fine", limit=5)["value"] == "fine"


@pytest.mark.parametrize("port", ["99999", "-1", "x"])
def test_a_bad_port_is_a_usage_error(port: str) -> None:
    import subprocess
    import sys

    result = subprocess.run(
        [sys.executable, "-m", "response_schema", "playground", "--port", port],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2 and "Traceback" not in result.stderr and "argument --port" in result.stderr


def raw_post(base: str, body: bytes, headers: dict[str, str] | None = None) -> tuple[int, Any]:
    request = urllib.request.Request(f"{base}/api/parse", data=body, method="POST", headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def test_bad_bodies_get_a_4xx_that_says_why(base: str) -> None:
    deep = b'{"schema": ' + b"[" * 100_000 + b"]" * 100_000 + b', "text": ""}'
    status, answer = raw_post(base, deep)
    assert status == 400 and "deeper than" in answer["bad_request"]
    assert raw_post(base, b"\xff")[0] == 400
    assert raw_post(base, b'{"schema": {}, "schema": {}, "text": ""}')[0] == 400
    assert raw_post(base, b"[]")[0] == 400
    status, answer = raw_post(base, b"{}", {"Content-Length": "99999999"})
    assert status == 413 and "over" in answer["bad_request"]
    assert post(base, {"schema": {"type": "string"}, "text": "still serving"})[1]["value"] == "still serving"


def test_no_404_on_a_page_load(base: str) -> None:
    with urllib.request.urlopen(f"{base}/favicon.ico", timeout=30) as response:
        assert response.status == 204
