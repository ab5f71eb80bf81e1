"""Match statistics (cythello.stats), checked by simulation: matches drawn from known
win/draw/loss rates, with and without the opening bias that makes pairs split 1-1, and the
intervals' coverage and the SPRT's error rates measured against the truth."""
import math
from pathlib import Path

import numpy as np
import pytest

from cythello.errors import SettingsError
from cythello.match import MatchResult
from cythello.stats import (
    PAIR_SCORES,
    SPRT,
    Pentanomial,
    elo_of,
    llr,
    mean_interval,
    score_of,
    t_quantile_975,
)


def pair_distribution(elo, draws=0.1, split=0.0):
    """The pentanomial cell probabilities of a pair of games between players ``elo`` Elo
    apart: with probability ``split`` the opening decides both games (each colour wins
    once: a 1-1 pair), otherwise two independent games with the draw rate ``draws`` and
    the win rate that makes the per-game score ``score_of(elo)`` overall."""
    s = score_of(elo)
    inner = (s - 0.5 * split) / (1 - split)          # the score of an undecided pair
    win, loss = inner - draws / 2, 1 - inner - draws / 2
    assert win >= 0 and loss >= 0
    game = np.array([loss, draws, win])             # 0, ½, 1 point
    cells = np.convolve(game, game) * (1 - split)   # 0, ½, 1, 1½, 2 points
    cells[2] += split
    assert math.isclose(float(cells @ PAIR_SCORES), s)
    return cells


def test_elo_and_score_are_inverse():
    for elo in (-400, -35.5, 0, 12, 300):
        assert elo_of(score_of(elo)) == pytest.approx(elo)
    assert elo_of(0.5) == 0 and str(elo_of(0.5)) == "0.0"
    assert elo_of(1.0) == pytest.approx(1199.8, abs=0.1)      # clipped, finite


def test_t_quantiles_match_the_tables():
    table = {1: 12.7062, 2: 4.3027, 3: 3.1824, 4: 2.7764, 5: 2.5706, 10: 2.2281,
             30: 2.0423, 100: 1.9840, 10_000: 1.9602}
    for df, value in table.items():
        assert t_quantile_975(df) == pytest.approx(value, abs=1e-3)
    assert t_quantile_975(0) == math.inf


def test_pentanomial_counts_pairs_by_points():
    p = Pentanomial.from_pairs([0, 0.5, 1, 1, 1.5, 2, 2, 2])
    assert p.counts == (1, 1, 2, 1, 3) and p.pairs == 8
    assert p.score == pytest.approx((0 + 0.5 + 2 + 1.5 + 6) / 16)
    assert p.splits == 0.25
    assert str(p) == "1 0-2, 1 ½-1½, 2 1-1, 1 1½-½, 3 2-0"
    with pytest.raises(SettingsError, match="0.7"):
        Pentanomial.from_pairs([0.7])
    empty = Pentanomial((0, 0, 0, 0, 0))
    assert empty.score == 0.5 and empty.elo() == (0.0, math.inf)


def test_a_match_is_scored_by_its_pairs():
    # margins: the first player's, per game; pairs (0, 1), (2, 3), (4, 5); game 6 alone
    result = MatchResult(wins=4, draws=1, losses=2, margins=[10, -4, 6, 2, 0, -8, 30])
    assert result.pentanomial().counts == (0, 1, 1, 0, 1)
    assert result.pair_margins() == [3.0, 4.0, -4.0]
    mean, half = result.discs()
    assert mean == pytest.approx(1.0)
    assert half == pytest.approx(t_quantile_975(2) * np.std([3, 4, -4], ddof=1) / math.sqrt(3))
    assert result.elo() == result.pentanomial().elo()
    assert "discs +1.00" in result.summary()
    assert "3 pairs: 0 0-2, 1 ½-1½, 1 1-1, 0 1½-½, 1 2-0" in result.pairs_summary()
    # Counts alone (no games): the trinomial interval, as before.
    assert "±" in MatchResult(3, 1, 2).summary()
    assert MatchResult(3, 1, 2).elo_bound() is None


def test_a_match_won_in_every_game_has_a_bound_not_an_estimate():
    # 100-0: the score's Wilson interval gives a lower bound (+566), where the point
    # estimate would be the clip (+1200); the results file and its table say "above +566".
    sweep = MatchResult(wins=100, margins=[20] * 100)
    assert sweep.elo_bound() == pytest.approx(566, abs=1)
    assert "Elo > +566 (95% bound)" in sweep.summary()
    assert MatchResult(losses=10).elo_bound() < 0 < MatchResult(wins=10).elo_bound()
    import sys
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "docs"))
    import _plots
    row = {"player": "medium", "opponent": "easy", "seconds": "", "games": "100",
           "elo": "566", "interval": "", "openings": "balanced", "pentanomial": "0 0 0 0 50",
           "discs": "53.56", "discs_interval": "1.50"}
    assert "above +566" in _plots.match_table([row]) and _plots.ladder(row)
    assert "medium against easy" not in _plots.strength([row])


def _coverage(cells, pairs, runs, rng):
    """How often the pentanomial and the trinomial (games as independent) 95% intervals
    hold the true score, and their mean widths, over ``runs`` simulated matches."""
    truth = float(cells @ PAIR_SCORES)
    samples = rng.multinomial(1, cells, size=(runs, pairs)).argmax(axis=2)
    hits = [0, 0]
    widths = [0.0, 0.0]
    for sample in samples:
        penta = Pentanomial(tuple(int(c) for c in np.bincount(sample, minlength=5)))
        _, low, high = penta.score_interval()
        hits[0] += low <= truth <= high
        widths[0] += high - low
        # the same games counted one by one: each pair's points split into two games
        points = sample / 2.0
        games = np.concatenate([np.minimum(points, 1.0), np.maximum(points - 1.0, 0.0)])
        score = games.mean()
        half = 1.96 * games.std(ddof=1) / math.sqrt(len(games))
        hits[1] += score - half <= truth <= score + half
        widths[1] += 2 * half
    return [h / runs for h in hits], [w / runs for w in widths]


@pytest.mark.parametrize("elo, split", [(0, 0.0), (60, 0.0), (30, 0.6), (-100, 0.3)])
def test_the_pentanomial_interval_holds_the_truth_95_percent_of_the_time(elo, split):
    rng = np.random.default_rng(7)
    (penta, trino), (width, trino_width) = _coverage(pair_distribution(elo, 0.1, split),
                                                     pairs=60, runs=1500, rng=rng)
    # 1500 matches: a coverage's standard error is 0.6 points
    assert 0.93 <= penta <= 0.97, penta
    if split >= 0.3:
        # Pairs that split 1-1 carry the opening's bias in both games: counted as
        # independent games they make the interval too wide (over-covering), the
        # pentanomial one stays at 95% and narrower.
        assert width < 0.9 * trino_width
        assert trino > 0.975


def test_the_disc_interval_holds_the_truth_95_percent_of_the_time():
    rng = np.random.default_rng(11)
    hits, runs, pairs, truth = 0, 2000, 25, 1.5
    for _ in range(runs):
        bias = rng.normal(0, 12, pairs)                 # the opening's worth to black
        skill = rng.normal(truth, 6, (2, pairs))        # the first player's own margin
        black, white = skill[0] + bias, skill[1] - bias   # the first player as black, white
        mean, half = mean_interval(list((black + white) / 2))
        hits += abs(mean - truth) <= half
    assert 0.935 <= hits / runs <= 0.965, hits / runs


def _sprt_runs(test, cells, runs, most, rng):
    """Simulate ``runs`` SPRTs on pairs drawn from ``cells``: the share that accepted H1,
    that accepted H0, and the mean pairs played (a run undecided after ``most`` pairs
    counts as neither)."""
    low, high = test.bounds
    counts = np.zeros((runs, 5))
    verdict = np.zeros(runs, dtype=int)                  # +1 H1, -1 H0, 0 going on
    length = np.full(runs, most)
    for step in range(1, most + 1):
        active = verdict == 0
        if not active.any():
            break
        draws = rng.choice(5, size=int(active.sum()), p=cells)
        counts[np.flatnonzero(active), draws] += 1
        ratio = llr(counts[active], test.elo0, test.elo1)
        decided = np.flatnonzero(active)
        verdict[decided] = np.where(ratio >= high, 1, np.where(ratio <= low, -1, 0))
        length[decided[verdict[decided] != 0]] = step
    return np.mean(verdict == 1), np.mean(verdict == -1), length.mean()


@pytest.mark.parametrize("split", [0.0, 0.6])
def test_the_sprt_keeps_its_error_rates(split):
    test = SPRT(0, 40, alpha=0.05, beta=0.05)
    rng = np.random.default_rng(3)
    # True Elo = elo0: H1 accepted at most alpha of the time (300 runs: SE 1.3 points).
    h1, h0, pairs = _sprt_runs(test, pair_distribution(0, 0.1, split), 300, 2000, rng)
    assert h1 <= 0.05 + 0.03 and h0 >= 0.9, (h1, h0)
    # True Elo = elo1: H0 accepted at most beta of the time.
    h1, h0, pairs_h1 = _sprt_runs(test, pair_distribution(40, 0.1, split), 300, 2000, rng)
    assert h0 <= 0.05 + 0.03 and h1 >= 0.9, (h1, h0)
    # Far from both: decided fast, the right way.
    h1, h0, fast = _sprt_runs(test, pair_distribution(120, 0.1, split), 100, 2000, rng)
    assert h1 == 1.0 and fast < pairs_h1 / 2


def test_llr_is_the_generalised_likelihood_ratio():
    counts = np.array([10, 40, 200, 60, 15])
    # Against the normal approximation fishtest uses beside it (LLR_alt2)
    p = counts / counts.sum()
    mu = p @ PAIR_SCORES
    var = p @ (PAIR_SCORES - mu) ** 2
    s0, s1 = score_of(0), score_of(20)
    approx = counts.sum() * (s1 - s0) * (2 * mu - s0 - s1) / (2 * var)
    assert float(llr(counts, 0, 20)[0]) == pytest.approx(approx, rel=0.03)
    # Symmetric: the mirrored sample is as much evidence the other way.
    assert float(llr(counts[::-1], -20, 0)[0]) == pytest.approx(-float(llr(counts, 0, 20)[0]))
    # Rows at once, as one at a time; no pairs: no evidence.
    rows = np.array([counts, counts[::-1], [0, 0, 0, 0, 0]])
    assert llr(rows, 0, 20) == pytest.approx([llr(counts, 0, 20)[0],
                                              llr(counts[::-1], 0, 20)[0], 0.0])


def test_sprt_settings_are_checked():
    assert SPRT(0, 10).bounds == pytest.approx((math.log(0.05 / 0.95), math.log(0.95 / 0.05)))
    with pytest.raises(SettingsError, match="elo0 must be below elo1"):
        SPRT(10, 0)
    with pytest.raises(SettingsError, match="alpha"):
        SPRT(0, 10, alpha=0)
    with pytest.raises(TypeError, match="beta"):
        SPRT(0, 10, beta="0.1")
    described = SPRT(0, 50).describe(Pentanomial((0, 0, 0, 0, 40)))
    assert "H1 accepted" in described and "LLR +" in described


def _compositions(n, k=5):
    import itertools
    for cut in itertools.combinations(range(n + k - 1), k - 1):
        edges = (-1,) + cut + (n + k - 1,)
        yield tuple(edges[i + 1] - edges[i] - 1 for i in range(k))


@pytest.mark.parametrize("probabilities", [
    (0.05, 0.1, 0.7, 0.1, 0.05), (0.2, 0.1, 0.4, 0.1, 0.2), (0.05, 0.05, 0.45, 0.15, 0.3),
    (0.02, 0.03, 0.3, 0.15, 0.5), (0.1, 0.15, 0.6, 0.1, 0.05)])
def test_the_elo_interval_covers_the_truth_in_small_matches(probabilities):
    # Exact enumeration of every match of n pairs: the share of them whose interval
    # holds the true score (the normal interval over the counts alone: 0-91 %).
    from cythello.stats import PAIR_SCORES
    p = np.array(probabilities)
    truth = float(p @ PAIR_SCORES)
    for n in (1, 2, 3, 5, 8, 10):
        covered = 0.0
        for counts in _compositions(n):
            _, low, high = Pentanomial(counts).score_interval()
            if low <= truth <= high:
                ways = math.factorial(n)
                for c in counts:
                    ways //= math.factorial(c)
                covered += ways * float(np.prod(p ** np.array(counts)))
        assert covered >= 0.949, (n, covered)


def test_two_split_pairs_do_not_claim_a_narrow_interval():
    elo, half = Pentanomial((0, 0, 2, 0, 0)).elo()
    assert elo == 0 and half > 150


def test_degenerate_counts_get_answers_or_clear_errors():
    from cythello.stats import elo_bound, elo_difference, score_of
    assert elo_bound(0, 0, 0) == math.inf
    assert elo_difference(0, 0, 0) == (0.0, math.inf)
    assert score_of(-1e6) < 1e-100 and score_of(1e6) == 1.0
    for counts in [(-1, 0, 0, 0, 0), (float("nan"), 0, 0, 0, 0), (1.5, 0, 0, 0, 0), (1, 2)]:
        with pytest.raises(SettingsError):
            Pentanomial(counts)
    with pytest.raises(SettingsError, match="wins"):
        elo_difference(-1, 3, 0)
    assert Pentanomial((np.int64(1), 0, 2, 0, 1)).pairs == 4
