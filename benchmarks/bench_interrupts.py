"""Seconds from Ctrl-C to exit for each long-running command, and the processes left
behind: SIGINT goes to the command's process group, as a terminal sends it (POSIX).

    python3 benchmarks/bench_interrupts.py 3              # Ctrl-C 3 s in, every command
    python3 benchmarks/bench_interrupts.py 3 solve match  # some of them
"""
import os
import signal
import subprocess
import sys
import tempfile
import time

TMP = tempfile.mkdtemp(prefix="cythello-interrupts-")
RUN, BOOK = os.path.join(TMP, "run"), os.path.join(TMP, "b.cybook")
B40 = "---------O--------OX-X-O--OOXXOX--OXXOX---O-OOX---OX--O-----X--- X"
CASES = {
    "solve": ["solve", "--time", "20", "--board", B40],
    "analyse": ["analyse", "--time", "20", "--board", B40],
    "analyse-game": ["analyse", "--game", "--time", "2", "f5d6c3d3c4f4f6f3e6e7d7c5b6"],
    "selfplay": ["selfplay", "--games", "40", "--out", RUN, "--workers", "2", "--iterations", "3000"],
    "match": ["match", "mcts:preset=expert,time=1", "expert", "--games", "8", "--workers", "2"],
    "book": ["book", "build", BOOK, "--workers", "2", "--rounds", "3"],
}


def run(name, after):
    subprocess.run(["rm", "-rf", RUN, BOOK], check=False)
    cmd = [sys.executable, "-m", "cythello"] + CASES[name]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)
    time.sleep(after)
    sent = time.monotonic()
    os.killpg(proc.pid, signal.SIGINT)
    try:
        _, err = proc.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        proc.kill()
        _, err = proc.communicate()
    took = time.monotonic() - sent
    left = []
    for _ in range(20):                  # a resource tracker may take a moment to go
        time.sleep(0.1)
        left = subprocess.run(["pgrep", "-a", "-g", str(proc.pid)], capture_output=True,
                              text=True).stdout.splitlines()
        if not left:
            break
    lines = err.decode().strip().splitlines()
    print(f"{name:13} exit {proc.returncode:4} after {took:6.2f} s, {len(left)} processes left "
          f"2 s later; stderr ({len(lines)} lines): {lines[-1][:120] if lines else ''!r}",
          flush=True)
    for line in left:
        os.kill(int(line.split()[0]), signal.SIGKILL)


if __name__ == "__main__":
    after = float(sys.argv[1]) if len(sys.argv) > 1 else 3.0
    for name in sys.argv[2:] or CASES:
        run(name, after)
