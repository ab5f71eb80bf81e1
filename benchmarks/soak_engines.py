"""Soak: an NBoard and a GTP engine (pondering on) driven through full games, ``hint`` and
``analyze`` requests for many minutes, as a GUI would.  Every minute it prints each engine's
resident memory, threads and open file descriptors (flat is the goal); at the end the
longest ping-to-pong of NBoard (each ``hint``/``analyze``/``go`` is interrupted by a ping
while it searches), the games and requests served, and every error seen.  Linux (/proc).

    python benchmarks/soak_engines.py --minutes 10

Not a test: it runs for as long as it is told and proves nothing by passing; read it.
"""
from __future__ import annotations

import argparse
import os
import queue
import random
import subprocess
import sys
import threading
import time
from typing import Dict, List, Optional

import cythello as cy
from cythello.records.ggf import GgfGame

CYTHELLO = [sys.executable, "-m", "cythello"]


class Engine:
    """An engine process, its replies read on a thread into a queue with their times."""

    def __init__(self, name: str, args: List[str]) -> None:
        self.name = name
        self.proc = subprocess.Popen(CYTHELLO + args, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True, bufsize=1)
        self.lines: "queue.Queue[tuple[float, Optional[str]]]" = queue.Queue()
        self.errors: List[str] = []
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._read_errors, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put((time.monotonic(), line.rstrip("\n")))
        self.lines.put((time.monotonic(), None))

    def _read_errors(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.errors.append(f"{self.name} stderr: {line.rstrip()}")

    def send(self, line: str) -> float:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        return time.monotonic()

    def until(self, test, timeout: float = 120.0) -> "tuple[float, List[str]]":
        """Lines up to and including the first that ``test`` accepts, and its time."""
        seen = []
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise RuntimeError(f"{self.name}: no answer in {timeout} s after {seen[-3:]}")
            when, line = self.lines.get(timeout=left)
            if line is None:
                raise RuntimeError(f"{self.name} ended (exit {self.proc.wait()})")
            seen.append(line)
            if test(line):
                return when, seen

    def sample(self) -> Dict[str, int]:
        """Resident memory (kB), threads and open file descriptors of the process."""
        pid = self.proc.pid
        fields = {}
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                key, _, value = line.partition(":")
                if key in ("VmRSS", "Threads"):
                    fields[key] = int(value.split()[0])
        fields["fds"] = len(os.listdir(f"/proc/{pid}/fd"))
        return fields

    def close(self, quit_line: str) -> float:
        started = time.monotonic()
        try:
            self.send(quit_line)
            assert self.proc.stdin is not None
            self.proc.stdin.close()
            self.proc.wait(timeout=30)
        except (OSError, subprocess.TimeoutExpired) as exc:
            self.errors.append(f"{self.name}: quit failed ({exc})")
            self.proc.kill()
        return time.monotonic() - started


class NBoardDriver:
    """Full games through ``go``; on each position a ``hint`` now and then, an ``analyze``
    at each game's end; each request interrupted by a ping after ``ping_after`` s."""

    def __init__(self, engine: Engine, rng: random.Random, ping_after: float) -> None:
        self.e, self.rng, self.ping_after = engine, rng, ping_after
        self.ping = 0
        self.pongs: List[float] = []
        self.counts = {"games": 0, "moves": 0, "hints": 0, "analyses": 0}
        self.e.send("nboard 2")
        self.e.send("set depth 12")
        self._pinged()

    def _pinged(self, after: float = 0.0) -> List[str]:
        """Send a ping (after ``after`` s), wait for its pong; the lines before it."""
        time.sleep(after)
        self.ping += 1
        sent = self.e.send(f"ping {self.ping}")
        when, lines = self.e.until(lambda line: line == f"pong {self.ping}")
        self.pongs.append(when - sent)
        for line in lines:
            if line.startswith("status error"):
                self.e.errors.append(f"nboard: {line}")
        return lines

    def game(self) -> None:
        board = cy.Board()
        self.e.send(f"set game {GgfGame.from_board(board).to_ggf()}")
        self._pinged()
        while not board.is_game_over():
            if board.must_pass():
                board.push(cy.PASS)
                self.e.send("move PA")                  # as a GUI passes for the side
                continue
            if self.rng.random() < 0.3:
                self.e.send(f"hint {self.rng.choice([1, 2, 4])}")
                self.counts["hints"] += 1
                self._pinged(self.rng.uniform(0, self.ping_after))      # interrupts it
            self.e.send("go")
            _, lines = self.e.until(lambda line: line.startswith("=== "))
            move = lines[-1][4:].split("/")[0]
            square = cy.PASS if move.upper() == "PA" else cy.parse_move(move.lower())
            board.push(square)
            self.e.send(f"move {move}")
            self.counts["moves"] += 1
            self._pinged()
        self.e.send("analyze")
        self.counts["analyses"] += 1
        self._pinged(self.rng.uniform(0, self.ping_after))
        self.counts["games"] += 1


class GtpDriver:
    """Full games of genmove against genmove, a time_settings clock now and then."""

    def __init__(self, engine: Engine, rng: random.Random) -> None:
        self.e, self.rng = engine, rng
        self.counts = {"games": 0, "moves": 0}

    def ask(self, command: str) -> str:
        self.e.send(command)
        _, lines = self.e.until(lambda line: line.startswith(("=", "?")))
        self.e.until(lambda line: line == "")
        reply = lines[-1]
        if reply.startswith("?"):
            self.e.errors.append(f"gtp: {command!r} -> {reply}")
        return reply

    def game(self) -> None:
        self.ask("clear_board")
        if self.rng.random() < 0.5:
            self.ask("time_settings 30 0 0")
        colour = "b"
        passes = 0
        while passes < 2:
            reply = self.ask(f"genmove {colour}")
            passes = passes + 1 if reply.endswith("pass") else 0
            self.counts["moves"] += 1
            colour = "w" if colour == "b" else "b"
        self.ask("gogui-rules_final_result")
        self.counts["games"] += 1


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--minutes", type=float, default=10.0)
    ap.add_argument("--move-time", type=float, default=0.05,
                    help="the engines' --time, seconds a move (default 0.05)")
    ap.add_argument("--sample", type=float, default=60.0, help="seconds between samples")
    ap.add_argument("--ping-after", type=float, default=0.3,
                    help="the longest wait before the ping that interrupts a request")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    common = ["--ponder", "--time", str(args.move_time)]
    nboard = Engine("nboard", ["nboard"] + common)
    gtp = Engine("gtp", ["gtp"] + common)
    nb, gt = NBoardDriver(nboard, rng, args.ping_after), GtpDriver(gtp, rng)
    start = time.monotonic()
    end = start + args.minutes * 60
    next_sample = start
    rows = []
    print(f"{'min':>5}  {'engine':<7} {'RSS MB':>7} {'threads':>7} {'fds':>4}  games moves")
    try:
        while True:
            now = time.monotonic()
            if now >= next_sample:
                for name, engine, driver in (("nboard", nboard, nb), ("gtp", gtp, gt)):
                    s = engine.sample()
                    rows.append((name, s))
                    print(f"{(now - start) / 60:5.1f}  {name:<7} {s['VmRSS'] / 1024:7.1f} "
                          f"{s['Threads']:>7} {s['fds']:>4}  {driver.counts['games']:>5} "
                          f"{driver.counts['moves']:>5}", flush=True)
                next_sample += args.sample
            if now >= end:
                break
            nb.game()
            gt.game()
    except Exception as exc:                # noqa: BLE001 - reported, then the engines close
        nboard.errors.append(f"driver: {type(exc).__name__}: {exc}")
    quits = {"nboard": nboard.close("quit"), "gtp": gtp.close("quit")}
    # The first ping waits for the engine to start (imports, weights, book): apart.
    startup, pongs = nb.pongs[0], sorted(nb.pongs[1:])
    print()
    print(f"nboard answered its first ping {startup * 1000:.0f} ms after it started")
    print(f"nboard: {nb.counts}")
    print(f"gtp: {gt.counts}")
    print(f"ping to pong over {len(pongs)} pings: median {pongs[len(pongs) // 2] * 1000:.0f} ms, "
          f"longest {pongs[-1] * 1000:.0f} ms")
    print(f"quit to exit: nboard {quits['nboard']:.2f} s, gtp {quits['gtp']:.2f} s")
    for name in ("nboard", "gtp"):
        seen = [s for n, s in rows if n == name]
        first, last = seen[0], seen[-1]
        print(f"{name}: RSS {first['VmRSS'] / 1024:.1f} -> {last['VmRSS'] / 1024:.1f} MB "
              f"(most {max(s['VmRSS'] for s in seen) / 1024:.1f}), threads "
              f"{first['Threads']} -> {last['Threads']}, fds {first['fds']} -> {last['fds']}")
    errors = nboard.errors + gtp.errors
    print(f"errors: {len(errors)}")
    for line in errors[:20]:
        print("  " + line)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
