import os
import time
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"


@pytest.fixture(scope="session")
def data_dir():
    return DATA


def read_perft_table():
    table = {}
    for line in (DATA / "perft.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            depth, count, _bik = line.split()
            table[int(depth)] = int(count)
    return table


try:
    from hypothesis import settings as _hypothesis_settings
except ImportError:                     # the property tests skip without it
    _hypothesis_settings = None
else:
    # "ci": the same examples every run (a failure reproduces), few enough for each push;
    # "nightly": many more, for a scheduled or manual run.  HYPOTHESIS_PROFILE picks one.
    _hypothesis_settings.register_profile("ci", derandomize=True, max_examples=60,
                                          deadline=None, print_blob=True)
    _hypothesis_settings.register_profile("nightly", max_examples=2000, deadline=None,
                                          print_blob=True)
    _hypothesis_settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def pytest_configure(config):
    # Also registered in pyproject.toml; repeated here for runs outside the checkout
    # (cibuildwheel's and tools/check_dist.sh's copies of tests/).
    config.addinivalue_line("markers", "slow: long-running checks; deselect with -m 'not slow'")


def exact_score(board):
    """Exact final disc difference for the side to move (empties to the winner), by plain
    minimax: the slow reference for the solvers.  Leaves ``board`` as it found it."""
    if board.is_game_over():
        return board.outcome().score_for(board.turn)
    best = -65
    for m in list(board.legal_moves):
        board.push(m)
        best = max(best, -exact_score(board))
        board.pop()
    return best


def random_endgame(rng, empties):
    """A position from a random game with at most ``empties`` empty squares, not over."""
    from cythello import Board
    while True:
        b = Board()
        while b.empties() > empties and not b.is_game_over():
            b.push(rng.choice(list(b.legal_moves)))
        if not b.is_game_over():
            return b


def wait_for(condition, what, limit=60.0):
    """Poll until ``condition()``; the limit only catches a hang."""
    start = time.monotonic()
    while not condition():
        assert time.monotonic() - start < limit, f"still waiting for {what}"
        time.sleep(0.005)
