"""Stops that always stop: Ctrl-C during C code, a first error ending all parallel work,
workers that never outlive their parent, and searches that say why they ended early."""
import multiprocessing
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import cythello as cy
from cythello import Board, MCTSPlayer, selfplay
from cythello._workers import Workers
from cythello.search.endgame._solver import Solver
from cythello.search.states import StopReason

PY = sys.executable
CYTHELLO = [PY, "-m", "cythello"]
# 40 empties: neither a search nor a solve of it ends by itself within these tests.
B40 = "---------O--------OX-X-O--OOXXOX--OXXOX---O-OOX---OX--O-----X--- X"
posix = pytest.mark.skipif(os.name != "posix", reason="process groups and SIGINT are POSIX")
linux = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")


@pytest.fixture(autouse=True, scope="module")
def _ctrl_c_as_a_terminal_gives_it():
    """These tests are about Ctrl-C: a test run started as a background job of a
    non-interactive shell inherits SIGINT ignored, and so would every process it starts
    (Python keeps an ignored SIGINT ignored), so Python's own handler is put back for
    them; the processes they start then begin with the default."""
    previous = signal.getsignal(signal.SIGINT)
    if previous == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def _mark_and_wait(folder, i, seconds):
    """A job of the runner tests: leaves a mark when it starts, then takes its time."""
    Path(folder, f"started-{i}").touch()
    time.sleep(seconds)
    return i


class _DiesWhenPickled:
    """A result whose worker is killed while the result is being written back."""

    def __reduce__(self):
        os.kill(os.getpid(), signal.SIGKILL)


def _large_result_or_death(folder, i):
    """A job of the runner tests: 16 MB back (more than a pipe holds), except job 1's
    first try, whose worker dies while sending its result."""
    import numpy as np
    marker = Path(folder, f"tried-{i}")
    first = not marker.exists()
    marker.touch()
    return _DiesWhenPickled() if first and i == 1 else np.full(2_000_000, i)


def _live_in_group(pgid):
    """Processes of a process group still running (zombies are not)."""
    live = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            live.append(int(stat.parent.name))
    return live


def _wait_until(condition, limit=30.0):
    end = time.monotonic() + limit
    while not condition():
        if time.monotonic() > end:
            return False
        time.sleep(0.05)
    return True


def _interrupt_after(seconds):
    """SIGINT to this process a little later, as a Ctrl-C would send it."""
    timer = threading.Timer(seconds, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    return timer


# -- Ctrl-C in the library: searches and solves on the main thread -----------------------------

@posix
def test_ctrl_c_stops_a_long_search_and_the_player_searches_again():
    player = MCTSPlayer.preset("expert", time_limit=60)
    start = time.monotonic()
    timer = _interrupt_after(0.3)
    with pytest.raises(KeyboardInterrupt):
        player.search(Board(B40))
    timer.join()
    assert time.monotonic() - start < 30            # not the 60 s asked
    result = player.search(Board(B40), iterations=2000, time_limit=None)
    assert result.iterations == 2000 and result.stop_reason == StopReason.ITERATIONS


@posix
def test_ctrl_c_stops_a_long_solve_and_the_solver_solves_again():
    solver = Solver()
    start = time.monotonic()
    timer = _interrupt_after(0.3)
    with pytest.raises(KeyboardInterrupt):
        cy.solve(Board(B40), time_limit=60, solver=solver)
    timer.join()
    assert time.monotonic() - start < 30
    near_end = Board("XXXXXX---XOXXXXXXOXXXOXO-OXXOXO-OOOOOOOOOOOXOXXOOXXXXXX-X----XXX X")
    assert cy.solve(near_end, solver=solver).score is not None   # no stop left standing


# -- Ctrl-C on the command line --------------------------------------------------------------

def _ctrl_c(args, after, started=None):
    """Runs ``cythello args`` in its own process group, sends the group SIGINT (as a
    terminal does) once ``started()`` or after ``after`` seconds; returns the process, its
    stderr and the seconds it took to exit."""
    proc = subprocess.Popen(CYTHELLO + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)
    if started is not None:
        assert _wait_until(lambda: started(proc.pid))
    time.sleep(after)
    sent = time.monotonic()
    os.killpg(proc.pid, signal.SIGINT)
    try:
        _, err = proc.communicate(timeout=15)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        pytest.fail(f"cythello {args[0]} did not stop within 15 s of Ctrl-C")
    return proc, err.decode(), time.monotonic() - sent


@posix
@pytest.mark.parametrize("args", [
    ["solve", "--time", "60", "--board", B40],
    ["analyse", "--time", "60", "--board", B40],
])
def test_ctrl_c_ends_a_command_in_c_code_at_once(args):
    proc, err, _ = _ctrl_c(args, 1.5)
    assert proc.returncode == 130
    lines = err.strip().splitlines()                  # no traceback: at most the warning
    assert lines[-1] == f"cythello {args[0]}: interrupted"     # that 40 empties is much
    assert len(lines) == (2 if args[0] == "solve" else 1)      # for an exact solve


@posix
@linux
def test_ctrl_c_ends_self_play_on_workers_and_leaves_no_process(tmp_path):
    out = tmp_path / "run"
    proc, err, _ = _ctrl_c(["selfplay", "--games", "40", "--out", str(out), "--workers", "2",
                            "--iterations", "3000", "--games-per-shard", "20"], 1.0,
                           started=lambda pgid: len(_live_in_group(pgid)) >= 3)
    assert proc.returncode == 130
    assert "interrupted: 0 of 2 shards are complete" in err and "continues the run" in err
    assert len(err.strip().splitlines()) == 1
    assert _wait_until(lambda: not _live_in_group(proc.pid), 10)


@posix
@linux
def test_ctrl_c_ends_a_match_on_workers_and_leaves_no_process():
    proc, err, _ = _ctrl_c(["match", "mcts:preset=expert,time=2", "expert", "--games", "4",
                            "--workers", "2"], 1.0,
                           started=lambda pgid: len(_live_in_group(pgid)) >= 3)
    assert proc.returncode == 130
    assert err.strip() == "cythello match: interrupted: after 0 of 4 games"
    assert _wait_until(lambda: not _live_in_group(proc.pid), 10)


# -- workers: a first error stops all, a killed parent takes its workers along ----------------

def test_an_error_cancels_the_pending_jobs_and_kills_the_workers(tmp_path):
    jobs = [(str(tmp_path), i, 0.5) for i in range(30)]
    with pytest.raises(OSError, match="No space left"), Workers(2) as pool:
        for _ in pool.run(_mark_and_wait, jobs):
            raise OSError(28, "No space left on device")   # as writing a shard may
    # No worker left, so nothing more can start: the two running jobs and perhaps the
    # next ones queued have, not the whole run.
    assert _wait_until(lambda: not multiprocessing.active_children(), 10)
    assert len(list(tmp_path.glob("started-*"))) <= 6


def test_large_results_come_back_and_a_worker_dying_as_it_sends_costs_a_try(tmp_path,
                                                                            monkeypatch):
    # Results travel in files of their own (a worker killed halfway through a message
    # larger than the pipe left the pool waiting for the rest forever); the files go
    # with the run, the half-written one too.
    import tempfile
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    marks = tmp_path / "marks"
    marks.mkdir()
    with Workers(2) as pool:
        results = dict(pool.run(_large_result_or_death, [(str(marks), i) for i in range(4)]))
    assert sorted(results) == [0, 1, 2, 3]
    assert all(len(r) == 2_000_000 and (r == i).all() for i, r in results.items())
    assert not list(tmp_path.glob("cythello-results-*"))


def test_self_play_reports_a_full_disk_without_playing_on(tmp_path, monkeypatch):
    import cythello.selfplay.run as sp
    written = []

    def full(path, columns):
        written.append(path)
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(sp, "write_shard", full)
    with pytest.raises(OSError, match="No space left"):
        selfplay.generate(40, tmp_path, seed=1, workers=2, games_per_shard=1, iterations=50)
    assert len(written) == 1
    assert _wait_until(lambda: not multiprocessing.active_children(), 10)


@linux
def test_workers_exit_when_their_parent_is_killed(tmp_path):
    script = tmp_path / "parent.py"
    script.write_text(
        "import time\n"
        "from cythello._workers import Workers\n"
        "if __name__ == '__main__':\n"
        "    with Workers(2) as pool:\n"
        "        print('running', flush=True)\n"
        "        for _ in pool.run(time.sleep, [(60,)] * 4):\n"
        "            pass\n")
    proc = subprocess.Popen([PY, str(script)], stdout=subprocess.PIPE, start_new_session=True)
    assert proc.stdout.readline().strip() == b"running"
    assert _wait_until(lambda: len(_live_in_group(proc.pid)) >= 3)      # parent + 2 workers
    proc.kill()                                                          # SIGKILL: no clean-up
    proc.wait()
    proc.stdout.close()
    gone = _wait_until(lambda: not _live_in_group(proc.pid), 20)
    for pid in _live_in_group(proc.pid):
        os.kill(pid, signal.SIGKILL)
    assert gone, "the workers outlived their killed parent"


def test_a_run_on_one_worker_stops_at_the_first_error_too():
    ran = []

    def job(i):
        ran.append(i)
        return i
    with pytest.raises(ValueError), Workers(1) as pool:
        for _ in pool.run(job, [(i,) for i in range(5)]):
            raise ValueError("stop")
    assert ran == [0]


# -- a search that ends before its time says why -----------------------------------------------

def test_analyse_says_why_a_search_ended_before_the_time_asked():
    proc = subprocess.run(CYTHELLO + ["analyse", "--time", "30", "--iterations", "3000",
                                      "f5d6c3d3c4"], capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "of the 30 s asked: its iteration limit was reached" in proc.stdout


def test_every_stop_reason_explains_itself():
    for reason in StopReason:
        assert reason.explanation and reason.explanation != reason.value


def test_ending_pondering_is_inside_the_searchs_time():
    """A search's time counts from when it got the player: the wait for its pondering to
    end (here an evaluator call of 0.2 s in progress) is part of the move, not added to
    it (a 3 s GTP move once took 3.7 s so)."""
    from cythello.nn import uniform_evaluator
    calls = []

    def slow(planes, legal):
        calls.append(time.monotonic())
        time.sleep(0.2)
        return uniform_evaluator(planes, legal)

    player = cy.PUCTPlayer(slow, time_limit=0.3, endgame_empties=0)
    board = cy.Board.from_transcript("f5d6c3d3c4f4")
    player.ponder(board)
    deadline = time.monotonic() + 5
    while not calls and time.monotonic() < deadline:
        time.sleep(0.01)
    time.sleep(0.05)                              # pondering is inside an evaluator call
    began = time.monotonic()
    result = player.search(board)
    wall = time.monotonic() - began
    assert result.elapsed >= wall - 0.05, (result.elapsed, wall)
    player.stop_pondering()


def test_the_endgame_reports_progress_while_it_solves():
    """The selective passes and the exact solve are C calls of up to the whole move: a
    search with on_progress still reports while they run (alpha-beta and the expert gave
    no report at all in a 4 s move at 18-26 empties)."""
    line = (Path(__file__).parent / "data" / "fforum-40-59.obf").read_text().splitlines()[1]
    board = cy.Board(line.split(";")[0].strip())          # FFO #41, 22 empties
    for player in (cy.AlphaBetaPlayer(time=1.5), cy.make_player("expert:time=1.5,threads=1")):
        reports = []
        result = player.search(board, on_progress=reports.append)
        assert result.elapsed < 0.3 or reports, type(player).__name__
        assert all(r.stop_reason == cy.StopReason.RUNNING and board.is_legal(r.best_move)
                   and r.depth == 22 for r in reports)
    # An error of the callback stops the solve at once and reaches the caller.

    def fails(snapshot):
        raise RuntimeError("the GUI went away")

    began = time.monotonic()
    with pytest.raises(RuntimeError, match="the GUI went away"):
        cy.AlphaBetaPlayer(time=20).search(board, on_progress=fails)
    assert time.monotonic() - began < 2.0
