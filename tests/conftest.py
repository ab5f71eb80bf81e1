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
