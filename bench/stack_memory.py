"""Memory of a running stack (not a test): the sum of VmRSS and PSS over a process tree.

Usage: python3 bench/stack_memory.py <pid of jobs/supervisor.py>
"""

from __future__ import annotations

import subprocess
import sys


def descendants(pid: int) -> list[int]:
    children = subprocess.run(
        ["pgrep", "-P", str(pid)], capture_output=True, text=True
    ).stdout.split()
    return [pid] + [p for child in children for p in descendants(int(child))]


def field(path: str, name: str) -> int:
    with open(path) as handle:
        return next(int(line.split()[1]) for line in handle if line.startswith(name))


def main() -> None:
    rss = pss = 0
    for pid in descendants(int(sys.argv[1])):
        try:
            process_rss = field(f"/proc/{pid}/status", "VmRSS:")
            process_pss = field(f"/proc/{pid}/smaps_rollup", "Pss:")
            command = open(f"/proc/{pid}/cmdline").read().replace("\0", " ")[:100]
        except (FileNotFoundError, StopIteration):
            continue  # exited while we looked
        rss += process_rss
        pss += process_pss
        print(f"{process_rss / 1024:7.0f} MiB RSS {process_pss / 1024:7.0f} MiB PSS  {command}")
    print(f"total: {rss / 1024:.0f} MiB RSS, {pss / 1024:.0f} MiB PSS")


if __name__ == "__main__":
    main()
