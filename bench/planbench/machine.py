"""Where a benchmark ran: the revision, the processor and how busy the machine was."""

from __future__ import annotations

import os
import platform
import subprocess
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent.parent


def git_revision() -> str:
    """Return the short commit of the work tree, marked when it has local changes."""
    try:
        rev = subprocess.run(
            ["git", "-C", str(BENCH_DIR), "describe", "--always", "--dirty"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "(unknown revision)"
    return rev


def cpu_model() -> str:
    """Return the processor's model name from /proc/cpuinfo, where there is one."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def load_average() -> str:
    """Return the 1-minute load average: other work on the 2 cores skews every figure."""
    try:
        return f"{os.getloadavg()[0]:.1f}"
    except OSError:
        return "unknown"


def describe(load: str) -> str:
    """Describe the machine in one phrase: processor, cores, kernel, load at the start."""
    return (
        f"{cpu_model()}, {os.cpu_count()} cores, {platform.system()} {platform.release()}, "
        f"load average {load} at the start"
    )
