"""The playground in a real browser: headless Chromium (Debian's chromium and chromium-driver) driven by
selenium. Run by `tox -e browser`, which sets BROWSER_TESTS=1: there a missing browser fails the run; elsewhere
these tests are skipped. Screenshots go to reports/."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

REQUIRED = os.environ.get("BROWSER_TESTS") == "1"
REPORTS = Path(__file__).resolve().parents[2] / "reports"


def _need(condition: bool, why: str) -> None:
    if not condition:
        if REQUIRED:
            pytest.fail(why)
        pytest.skip(why)


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    server = subprocess.Popen(
        [sys.executable, "-m", "response_schema", "playground", "--port", "0"], stdout=subprocess.PIPE, text=True
    )
    assert server.stdout is not None
    line = server.stdout.readline()
    match = re.search(r"http://127\.0\.0\.1:\d+/", line)
    assert match, line
    yield match.group(0)
    server.terminate()
    server.wait(timeout=10)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    webdriver = (
        pytest.importorskip("selenium.webdriver") if not REQUIRED else __import__("selenium.webdriver").webdriver
    )
    chromium, driver = shutil.which("chromium"), shutil.which("chromedriver")
    _need(chromium is not None and driver is not None, "chromium and chromedriver are not installed")
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    profile = tempfile.mkdtemp()
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 f"--user-data-dir={profile}", "--window-size=1400,1000"):  # fmt: skip
        options.add_argument(flag)
    session = webdriver.Chrome(options=options, service=webdriver.ChromeService(executable_path=driver))
    yield session
    session.quit()
    shutil.rmtree(profile, ignore_errors=True)


def wait_for(browser: Any, condition: Any, seconds: float = 15) -> Any:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"not within {seconds} s: {browser.find_element('id', 'status').text!r}")


def text_of(browser: Any, element: str) -> str:
    return str(browser.find_element("id", element).text)


def set_value(browser: Any, element: str, value: str) -> None:
    browser.execute_script(
        "const e = document.getElementById(arguments[0]); e.value = arguments[1];e.dispatchEvent(new Event('input'));",
        element,
        value,
    )


def shot(browser: Any, name: str) -> None:
    REPORTS.mkdir(exist_ok=True)
    browser.save_screenshot(str(REPORTS / f"playground-{name}.png"))


def test_pick_a_format_edit_the_output_see_the_message(browser: Any, url: str) -> None:
    started = time.monotonic()
    browser.get(url)
    wait_for(browser, lambda: len(browser.find_elements("css selector", "#example option")) > 10)
    from selenium.webdriver.support.ui import Select

    Select(browser.find_element("id", "example")).select_by_value("qwen3")
    wait_for(browser, lambda: '"role": "assistant"' in text_of(browser, "message"))
    assert text_of(browser, "status") == "Parsed"
    assert browser.find_elements("css selector", "#highlight mark")  # the matched spans
    output = browser.find_element("id", "output")
    set_value(browser, "output", "<think>Short plan.</think>\nThe answer is")
    output.send_keys(" 42.")  # typed, as a person would
    wait_for(browser, lambda: "The answer is 42." in text_of(browser, "message"))
    assert '"thinking": "Short plan."' in text_of(browser, "message")
    shot(browser, "format")
    print(f"format picked and output edited in {time.monotonic() - started:.2f} s")


def test_break_the_schema_see_the_error_at_the_node(browser: Any, url: str) -> None:
    started = time.monotonic()
    browser.get(url)
    wait_for(browser, lambda: text_of(browser, "status") == "Parsed")
    schema = '{"type": "object", "properties": {"content": {"type": "string", "x-regexx": "(a)"}}}'
    set_value(browser, "schema", schema)
    wait_for(browser, lambda: "problem" in text_of(browser, "status"))
    problem = text_of(browser, "problems")
    assert "/properties/content/x-regexx" in problem and "unknown-keyword" in problem
    browser.find_element("css selector", "#problems li").click()  # the problem selects its keyword
    selected = browser.execute_script(
        "const e = document.getElementById('schema'); return e.value.slice(e.selectionStart, e.selectionEnd);"
    )
    assert selected == '"x-regexx"'  # the node, marked in the schema
    shot(browser, "schema-error")
    print(f"schema error shown at its node in {time.monotonic() - started:.2f} s")


def test_a_catastrophic_pattern_is_cut_off(browser: Any, url: str) -> None:
    started = time.monotonic()
    browser.get(url)
    wait_for(browser, lambda: text_of(browser, "status") == "Parsed")
    set_value(browser, "output", "a" * 40 + "c")
    set_value(browser, "schema", '{"type": "string", "x-regex": "(?:a+)+(b)$"}')
    wait_for(browser, lambda: text_of(browser, "status").startswith("Cut off"))
    shot(browser, "timeout")
    print(f"time-out shown in {time.monotonic() - started:.2f} s")
    browser.find_element("id", "output").send_keys("")  # the page still answers
    set_value(browser, "schema", '{"type": "string"}')
    wait_for(browser, lambda: text_of(browser, "status") == "Parsed")


def test_a_failed_request_clears_the_old_result_and_says_why(browser: Any, url: str) -> None:
    browser.get(url)
    wait_for(browser, lambda: text_of(browser, "status") == "Parsed" and text_of(browser, "message"))
    set_value(browser, "output", "x" * (5 * 1024 * 1024))  # over the server's 4 MiB: HTTP 413
    wait_for(browser, lambda: "too large" in text_of(browser, "status"))
    assert text_of(browser, "message") == "" and text_of(browser, "trace") == ""
    assert not browser.find_elements("css selector", "#highlight mark")
    set_value(browser, "output", "Hello")
    wait_for(browser, lambda: text_of(browser, "status") == "Parsed")
    set_value(browser, "schema", "{not json")
    wait_for(browser, lambda: "not JSON" in text_of(browser, "status"))
    assert text_of(browser, "message") == "" and text_of(browser, "trace") == ""


def test_the_page_says_so_when_its_server_is_gone(browser: Any) -> None:
    server = subprocess.Popen(
        [sys.executable, "-m", "response_schema", "playground", "--port", "0"], stdout=subprocess.PIPE, text=True
    )
    assert server.stdout is not None
    match = re.search(r"http://127\.0\.0\.1:\d+/", server.stdout.readline())
    assert match
    browser.get(match.group(0))
    wait_for(browser, lambda: text_of(browser, "status") == "Parsed" and text_of(browser, "message"))
    server.terminate()
    server.wait(timeout=10)
    set_value(browser, "output", "after the server stopped")
    wait_for(browser, lambda: "did not answer" in text_of(browser, "status"))
    assert text_of(browser, "message") == ""
    shot(browser, "server-gone")


def test_the_format_menu_follows_edits(browser: Any, url: str) -> None:
    from selenium.webdriver.support.ui import Select

    browser.get(url)
    wait_for(browser, lambda: len(browser.find_elements("css selector", "#example option")) > 10)
    Select(browser.find_element("id", "example")).select_by_value("qwen3")
    wait_for(browser, lambda: text_of(browser, "status") == "Parsed")

    def chosen() -> str:
        return str(browser.execute_script("return document.getElementById('example').value"))

    set_value(browser, "schema", '{"type": "string"}')  # no longer the qwen3 schema
    wait_for(browser, lambda: chosen() == "")
    schema = browser.execute_script("return JSON.stringify(examples.find((e) => e.name === 'gpt-oss').schema)")
    set_value(browser, "schema", schema)  # pasted back: the menu names it again
    wait_for(browser, lambda: chosen() == "gpt-oss")


def test_a_page_load_requests_nothing_that_is_missing(browser: Any, url: str) -> None:
    browser.get(url)
    wait_for(browser, lambda: text_of(browser, "status") == "Parsed")
    statuses = browser.execute_script(
        "return performance.getEntriesByType('resource').map((e) => [e.name, e.responseStatus ?? 0]);"
    )
    assert all(status in (0, 200, 204) for _, status in statuses), statuses


def test_replay_an_output_as_a_stream(browser: Any, url: str) -> None:  # SPEC.md section 14
    started = time.monotonic()
    browser.get(url)
    wait_for(browser, lambda: text_of(browser, "status") == "Parsed")
    set_value(browser, "schema", '{"type": "object", "required": ["content"], "properties": {"content": '
              '{"type": "string", "x-regex": "^\\\\s*((?:(?!<eos>).)*?)\\\\s*(?:<eos>|$)"}}}')  # fmt: skip
    set_value(browser, "output", "x <e y<eos>")
    wait_for(browser, lambda: text_of(browser, "status") == "Parsed")
    browser.find_element("id", "replay").click()
    wait_for(browser, lambda: browser.find_element("id", "replay-at").is_enabled())
    set_value(browser, "replay-at", "4")  # "x <e": the "<e" may be the start of "<eos>"
    wait_for(browser, lambda: '"content": "x"' in text_of(browser, "replay-sent"))
    held = browser.find_elements("css selector", "#replay-text mark.held")
    assert held and "<e" in held[-1].text
    assert "may be the start of '<eos>'" in text_of(browser, "held-why")
    shot(browser, "replay")
    set_value(browser, "replay-at", "11")  # the whole output: the stream finished with the one-shot result
    wait_for(browser, lambda: '"content": "x <e y"' in text_of(browser, "replay-sent"))
    assert "finished" in text_of(browser, "replay-count")
    browser.find_element("id", "play").click()  # plays from where it is: at the end it stops at once
    wait_for(browser, lambda: browser.find_element("id", "play").text == "Play")
    print(f"stream replayed in {time.monotonic() - started:.2f} s")


@pytest.fixture(scope="module")
def js_url() -> Iterator[str]:
    """The JavaScript implementation (js/) served as files, as a page would load it."""
    root = Path(__file__).resolve().parents[2] / "js"
    server = subprocess.Popen(
        [sys.executable, "-u", "-m", "http.server", "0", "--bind", "127.0.0.1", "--directory", str(root)],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )  # fmt: skip
    assert server.stdout is not None
    line = server.stdout.readline()
    match = re.search(r"port (\d+)", line)
    assert match, line
    yield f"http://127.0.0.1:{match.group(1)}/"
    server.terminate()
    server.wait(timeout=10)


def test_the_readme_streams_a_fetch_body_to_chat_deltas_in_the_browser(browser: Any, js_url: str) -> None:
    """js/README.md's browser example, as written, in Chromium: its ES modules loaded from js/src, a Response body
    through TextDecoderStream and the TransformStream it builds (SPEC.md [STREAM-8])."""
    readme = (Path(__file__).resolve().parents[2] / "js/README.md").read_text(encoding="utf-8")
    section = readme[readme.index("## Streaming") : readme.index("## What it supports")]
    example = re.findall(r"```js\n(.*?)```", section, re.DOTALL)[1]
    body = example.replace(
        'import { OpenAIStream, compile } from "response-schema-js";',
        'const { OpenAIStream, compile } = await import("/src/index.js");',
    ).replace("console.log(", "printed.push(")
    assert "await import" in body and "printed.push(part.value)" in body
    browser.get(js_url + "package.json")  # a page of the same origin, to import the modules from
    printed = browser.execute_async_script(
        "const done = arguments[arguments.length - 1]; const printed = [];"
        f"(async () => {{ {body} }})().then(() => done(printed), (error) => done(String(error)));"
    )
    assert printed == [
        {"role": "assistant", "reasoning_content": "Convert the units."},
        {"content": "It is 12 km."},
    ], printed
