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
