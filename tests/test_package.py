"""What is published: one version everywhere, and an npm tarball that stands on its own (its license, its
types, links that work outside the repository, a name that is ours to publish)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import response_schema

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = json.loads((ROOT / "js" / "package.json").read_text(encoding="utf-8"))


def test_one_version() -> None:
    assert 'dynamic = ["version"]' in (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert PACKAGE["version"] == response_schema.__version__
    index = (ROOT / "js" / "src" / "index.js").read_text(encoding="utf-8")
    assert f'export const VERSION = "{response_schema.__version__}";' in index
    assert response_schema.__version__ not in (ROOT / "tox.ini").read_text(encoding="utf-8")


def test_the_npm_package_has_what_publishing_needs() -> None:
    assert PACKAGE["name"] == "response-schema-js"  # "response-schema" on npm is somebody else's
    for key in ("repository", "homepage", "bugs", "license"):
        assert PACKAGE.get(key), key
    assert PACKAGE["exports"]["./adapter"]["types"] == "./adapter.d.ts"
    assert (ROOT / "js" / "LICENSE").read_text(encoding="utf-8") == (ROOT / "LICENSE").read_text(encoding="utf-8")


@pytest.mark.skipif(shutil.which("npm") is None, reason="needs npm")
def test_the_tarball_holds_the_license_and_types_and_no_link_out_of_it() -> None:
    packed = subprocess.run(
        ["npm", "pack", "--dry-run", "--json", str(ROOT / "js")], capture_output=True, text=True, timeout=120
    )
    assert packed.returncode == 0, packed.stderr
    files = {entry["path"] for entry in json.loads(packed.stdout)[0]["files"]}
    assert {"LICENSE", "index.d.ts", "adapter.d.ts", "README.md", "src/adapter.mjs"} <= files
    readme = (ROOT / "js" / "README.md").read_text(encoding="utf-8")
    relative = [link for link in re.findall(r"\]\(([^)]+)\)", readme) if not link.startswith(("https://", "#"))]
    assert relative == [], "links that leave the package do not work on npm"


def test_the_wheel_holds_the_kit_adapters_the_readme_points_at(tmp_path: Path, source_tree: Path) -> None:
    pytest.importorskip("build")
    built = subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(tmp_path), str(source_tree)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert built.returncode == 0, built.stderr[-2000:]
    (wheel,) = tmp_path.glob("*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    assert {
        "response_schema/corpus/adapters/python/adapter.py",
        "response_schema/corpus/adapters/node/adapter.mjs",
    } <= names
    assert "corpus_dir() / 'adapters'" in (ROOT / "README.md").read_text(encoding="utf-8")
