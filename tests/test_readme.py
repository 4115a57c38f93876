"""The README's examples run and print what the README says they print."""

from __future__ import annotations

import contextlib
import io
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

README = (Path(__file__).parent.parent / "README.md").read_text(encoding="utf-8")


def test_python_examples_print_what_the_readme_shows() -> None:
    namespace: dict[str, object] = {}
    for block in re.findall(r"```python\n(.*?)```", README, re.DOTALL):
        statements = []
        for line in block.splitlines():
            if line.startswith("# ") and statements and not statements[-1].startswith("#"):
                expected = line[2:]
                code = "\n".join(statements)
                statements = []
                output = io.StringIO()
                with contextlib.redirect_stdout(output):
                    try:
                        exec(compile(code, "README", "exec"), namespace)
                    except Exception:  # an example may show a failure's printout, but never a bare exception
                        pytest.fail(f"README example raised:\n{code}")
                    else:
                        if not output.getvalue():  # a bare expression: its repr is the output
                            last = code.strip().splitlines()[-1]
                            print(repr(eval(last, namespace)))
                assert output.getvalue().strip() == expected, code
            else:
                statements.append(line)
        if statements:
            exec(compile("\n".join(statements), "README", "exec"), namespace)


def test_shell_example_prints_what_the_readme_shows(tmp_path: Path) -> None:
    script = re.search(r"```sh\n(cat > gpt-oss\.json.*?)```", README, re.DOTALL)
    shown = re.search(r"prints\n\n```json\n(.*?)```", README, re.DOTALL)
    assert script and shown
    bindir = Path(sys.executable).parent
    result = subprocess.run(
        ["bash", "-c", script.group(1)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        env={"PATH": f"{bindir}:/usr/bin:/bin"},
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == json.loads(shown.group(1))


def test_main_job_command_exits_0() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "response_schema.cli", "conformance", "run"], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert re.search(r"response-schema \S+: \d+ tests in [\d.]+ s: \d+ pass(, \d+ unsupported)?\n$", result.stdout)
