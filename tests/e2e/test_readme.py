"""Every code block of README.md, run as a newcomer would run it.

A real flightd serves the sample warehouse on a free port, as `make run`
does on 127.0.0.1:8815 (the address the README shows, replaced by the real
one). Python blocks run in this interpreter (the .venv's), the blocks of one
README section one after the other in one session; shell blocks run line by
line in bash with .venv/bin and bin on PATH; the Go block is compiled and run
inside the module. Only lines that cannot run inside a test are skipped, each
with its reason. Any snippet that fails fails its test.
"""

from __future__ import annotations

import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from _flightd import ROOT, WAREHOUSE, Server, serve_rest

README = ROOT / "README.md"
README_ADDR = "127.0.0.1:8815"
README_REST = "http://127.0.0.1:8181"

# Commands that cannot run inside a test, with the reason.
SKIPPED_COMMANDS = {
    "make run": "it serves in the foreground until Ctrl-C; this test starts the same server itself",
    "make test": "it runs this test",
    "pip install": "it changes the environment this test runs in; make test installs the same package",
    "docker": "no Docker engine runs here; make lint-docker checks the Dockerfile",
    "bin/flightd serve": "it serves in the foreground until Ctrl-C; this test starts the same server itself",
    "spark-sql": "no Spark runs here; Iceberg Java's RESTCatalog, which Spark's catalog wraps, is tested in cmd/flightd",
}


@dataclass
class Block:
    lang: str
    code: str
    line: int  # of the opening fence, 1-based
    section: str

    @property
    def id(self) -> str:
        return f"{self.lang}@{self.line}"


def readme_blocks(text: str) -> list[Block]:
    """The fenced code blocks of text, with the ## section each is in."""
    blocks: list[Block] = []
    section = ""
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("## "):
            section = line[3:].strip()
        m = re.match(r"^```(\S*)\s*$", line)
        if m:
            start = i
            i += 1
            body = []
            while i < len(lines) and not lines[i].startswith("```"):
                body.append(lines[i])
                i += 1
            blocks.append(Block(m.group(1), "\n".join(body) + "\n", start + 1, section))
        i += 1
    return blocks


BLOCKS = readme_blocks(README.read_text())


def test_the_readme_has_the_blocks_this_test_runs() -> None:
    # An unlabeled or new kind of block would be skipped without anyone
    # deciding it: every block says its language, and this test knows it.
    assert BLOCKS, "no code blocks found in README.md"
    for b in BLOCKS:
        assert b.lang in {"python", "sh", "go", "text"}, f"README.md line {b.line}: block language {b.lang!r}"
    assert sum(b.lang == "go" for b in BLOCKS) == 2, "the Go client and the Flight SQL examples"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """flightd serving a copy of the sample warehouse on free loopback
    ports, Flight and the REST catalog: the README's write examples change
    the tables they are given."""
    warehouse = tmp_path_factory.mktemp("readme") / "warehouse"
    shutil.copytree(WAREHOUSE, warehouse, symlinks=True)
    with serve_rest("--log-level", "error", warehouse=warehouse) as srv:
        yield srv


@pytest.fixture()
def checkout(tmp_path: pathlib.Path) -> pathlib.Path:
    """A scratch directory that looks like the checkout (its top-level entries
    linked in), so relative paths work and files a snippet writes land here."""
    for entry in ROOT.iterdir():
        if entry.name not in {".git", "__pycache__"}:
            (tmp_path / entry.name).symlink_to(entry)
    return tmp_path


def run(argv: list[str], cwd: pathlib.Path, server: Server, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(pathlib.Path(sys.executable).parent), str(ROOT / "bin"), env.get("PATH", "")])
    env["ICEFLIGHT_SERVER"] = f"grpc://{server.flight}"
    return subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


def local(code: str, server: Server) -> str:
    """code with the README's addresses replaced by the test server's."""
    return code.replace(README_ADDR, server.flight).replace(README_REST, server.rest or README_REST)


def skip_reason(command: str) -> str | None:
    for prefix, reason in SKIPPED_COMMANDS.items():
        if command == prefix or command.startswith(prefix + " "):
            return reason
    return None


def shell_commands(code: str) -> list[str]:
    """The command lines of a shell block: comment lines (a leading # after
    indentation) are not commands, and a line ending in a backslash
    continues on the next."""
    joined = re.sub(r"\\\n\s*", " ", code)
    return [ln for ln in joined.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]


@pytest.mark.parametrize("block", [b for b in BLOCKS if b.lang == "python"], ids=lambda b: b.id)
def test_python_block_runs(block: Block, server: Server, checkout: pathlib.Path) -> None:
    # The blocks before it in its section run first, as in one session.
    earlier = [b for b in BLOCKS if b.lang == "python" and b.section == block.section and b.line < block.line]
    program = "".join(local(b.code, server) for b in earlier + [block])
    res = run([sys.executable, "-c", program], checkout, server)
    assert res.returncode == 0, f"README.md line {block.line} ({block.section}) failed:\n{res.stderr}"


@pytest.mark.parametrize("block", [b for b in BLOCKS if b.lang == "sh"], ids=lambda b: b.id)
def test_shell_block_runs(block: Block, server: Server, checkout: pathlib.Path) -> None:
    ran, skipped = 0, []
    for command in shell_commands(block.code):
        reason = skip_reason(command.strip())
        if reason:
            skipped.append(f"{command.split('#')[0].strip()}: {reason}")
            continue
        res = run(["bash", "-e", "-o", "pipefail", "-c", local(command, server)], checkout, server)
        assert res.returncode == 0, f"README.md line {block.line}: {command!r} exited {res.returncode}:\n{res.stderr}"
        ran += 1
    if not ran:
        pytest.skip("; ".join(skipped))


@pytest.mark.parametrize("block", [b for b in BLOCKS if b.lang == "go"], ids=lambda b: b.id)
def test_go_block_compiles_and_runs(block: Block, server: Server) -> None:
    go = shutil.which("go")
    assert go, "go is not on PATH"
    # Inside the module, so the import of the client package resolves; an
    # underscore keeps the folder out of ./... patterns.
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="_readme_go_", dir=ROOT / "tests" / "e2e"))
    try:
        (tmp / "main.go").write_text(local(block.code, server))
        # A cold build of arrow-go on a busy machine takes minutes.
        res = run([go, "run", f"./{tmp.relative_to(ROOT)}"], ROOT, server, timeout=900)
    finally:
        shutil.rmtree(tmp)
    assert res.returncode == 0, f"README.md line {block.line}: the Go example failed:\n{res.stderr}"
    # Each example prints what it read; an empty answer is a failure too.
    assert res.stdout.strip(), f"README.md line {block.line}: the Go example printed nothing"
    for marker in ("rows in the first snapshot", "trips through Flight SQL"):
        if marker in block.code:
            assert marker in res.stdout, res.stdout
