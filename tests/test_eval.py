"""The pattern evaluation: features as defined, symmetric, identical in both builds,
weights files checked; the midgame search; the training pipeline end to end."""
import os
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import cythello as cy
from cythello.errors import WeightsError
from cythello.eval import PatternWeights, evaluate, feature_indices, patterns
from cythello.eval.weights import (
    DEFAULT_PATH,
    default_weights,
    load_weights,
    read_weights,
    save_weights,
    unpack,
)
from cythello.search.alphabeta._midgame import search, search_many


def random_boards(n, seed=1):
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        b = cy.Board()
        for _ in range(rng.randrange(0, 61)):
            if b.is_game_over():
                break
            b.push(rng.choice(list(b.legal_moves)))
        out.append(b)
    return out


def bitboards(boards):
    own = np.array([b.position()[0] for b in boards], dtype=np.uint64)
    opp = np.array([b.position()[1] for b in boards], dtype=np.uint64)
    return own, opp


@pytest.fixture(scope="module")
def random_weights():
    rng = np.random.default_rng(0)
    packed = rng.integers(-400, 400, size=(patterns.N_STAGES, patterns.packed_size()))
    return PatternWeights(unpack(packed.astype(np.int16)), {"test": True})


def test_features_read_the_defined_squares():
    boards = random_boards(200)
    idx = feature_indices(*bitboards(boards))
    offsets = [0]
    for lay in patterns.layouts():
        offsets.append(offsets[-1] + 3 ** lay.pattern.size)
    for n, board in enumerate(boards):
        own, opp = board.position()
        col = 0
        for t, lay in enumerate(patterns.layouts()):
            for k in lay.instances:
                digits = [1 if own >> s & 1 else 2 if opp >> s & 1 else 0
                          for s in lay.instance_squares(k)]
                assert idx[n, col] == offsets[t] + sum(d * 3 ** i for i, d in enumerate(digits))
                col += 1
        assert idx[n, col] == offsets[-1] + (64 - board.empties()) % 2
        # Mobility, against the rules' legal moves of each side (a pass is not a move).
        for side, (p, o) in enumerate(((own, opp), (opp, own))):
            moves = [m for m in cy.Board.from_bitboards(p, o, 0).legal_moves if m != cy.PASS]
            slot = min(len(moves), patterns.MOBILITY_SLOTS - 1)
            assert idx[n, col + 1 + side] == (offsets[-1] + patterns.PARITY_WEIGHTS
                                               + side * patterns.MOBILITY_SLOTS + slot)


def test_the_pattern_set_is_logistellos_with_mobility():
    assert patterns.n_features() == 49                      # 46 instances, parity, 2 mobilities
    # mirror-packed patterns + parity (Logistello: 113,879), then 32 mobility slots a side
    assert patterns.packed_size() == 113877 + 2 + 64
    sizes = {lay.pattern.name: len(lay.instances) for lay in patterns.layouts()}
    assert sizes["corner 2x5"] == 8 and sizes["diagonal 8"] == 2 and sizes["edge+2X"] == 4


def test_evaluation_is_symmetric(random_weights):
    for weights in (random_weights, default_weights()):
        for board in random_boards(150, seed=2):
            values = {weights.evaluate(board.transform(k)) for k in range(8)}
            assert len(values) == 1, board.board_string()


def test_evaluate_api():
    board = cy.Board.from_transcript("f5d6c3d3c4")
    value = evaluate(board)
    assert -64 <= value <= 64 and value == cy.evaluate(board)
    assert value == default_weights().evaluate(board)
    with pytest.raises(TypeError):
        evaluate("f5d6")
    own, opp = bitboards([board])
    assert default_weights().evaluate_many(own, opp)[0] == value
    with pytest.raises(ValueError):
        default_weights().evaluate_many(own, own)
    with pytest.raises(ValueError):
        feature_indices(own, np.zeros(2, dtype=np.uint64))


def test_a_finished_game_evaluates_to_its_exact_score():
    # A full board evaluated by the patterns said -70.6 for a 64-0 loss, outside any game.
    lost = cy.Board("O" * 64 + " X")
    assert evaluate(lost) == -64.0
    squares = ["X"] * 64
    squares[1], squares[63] = "O", "-"              # b1 white, h8 empty: neither can move
    mixed = cy.Board("".join(squares) + " O")
    assert mixed.is_game_over()
    assert evaluate(mixed) == mixed.outcome().score_for(cy.WHITE) == -62
    own, opp = bitboards([lost, mixed])
    assert list(default_weights().evaluate_many(own, opp)) == [-64.0, -62.0]


def test_build_info_names_the_weights():
    info = cy.build_info()
    assert info["eval_weights"]["file"] == "default.weights"
    assert info["eval_weights"]["trained_by"] == "cythello.training.pipeline"
    assert info["eval_path"] in ("portable", "x86-64-v3")


FINGERPRINT = r"""
import hashlib, random, numpy as np, cythello as cy
from cythello.eval import default_weights, feature_indices
from cythello.eval._patterns import EVAL_BUILD
rng = random.Random(5); own = []; opp = []
for _ in range(300):
    b = cy.Board()
    for _ in range(rng.randrange(60)):
        if b.is_game_over(): break
        b.push(rng.choice(list(b.legal_moves)))
    own.append(b.position()[0]); opp.append(b.position()[1])
own = np.array(own, dtype=np.uint64); opp = np.array(opp, dtype=np.uint64)
h = hashlib.sha256(default_weights().evaluate_many(own, opp).tobytes())
h.update(feature_indices(own, opp).tobytes())
print(EVAL_BUILD, h.hexdigest())
"""


def test_both_builds_evaluate_the_same():
    outs = []
    for portable in (False, True):
        env = dict(os.environ)
        env.pop("CYTHELLO_PORTABLE", None)
        if portable:
            env["CYTHELLO_PORTABLE"] = "1"
        out = subprocess.run([sys.executable, "-c", FINGERPRINT], capture_output=True,
                             text=True, env=env, timeout=120)
        assert out.returncode == 0, out.stderr
        outs.append(out.stdout.split())
    assert outs[1][0] == "portable"
    assert outs[0][1] == outs[1][1], (outs[0][0], outs[1][0])


def test_weights_files_are_checked(tmp_path):
    packed, header = read_weights(DEFAULT_PATH)
    good = tmp_path / "good.weights"
    save_weights(good, packed, {"note": "copy"})
    assert load_weights(good).info["note"] == "copy"
    assert np.array_equal(load_weights(good).array, default_weights().array)
    data = good.read_bytes()
    cases = {
        "missing": None,
        "empty": b"",
        "bad magic": b"NOTEVALS" + data[8:],
        "truncated": data[: len(data) // 2],
        "flipped byte": data[:100] + bytes([data[100] ^ 0xFF]) + data[101:],
    }
    for name, content in cases.items():
        path = tmp_path / f"{name}.weights"
        if content is not None:
            path.write_bytes(content)
        with pytest.raises(WeightsError):
            load_weights(path)
    with pytest.raises(WeightsError):
        save_weights(tmp_path / "x.weights", packed[:3], {})
    with pytest.raises(ValueError):
        PatternWeights(np.zeros((2, 3), dtype=np.int16))


def test_weights_of_the_0_2_layout_load_with_zero_mobility(tmp_path):
    """A 0.2.0 weights file (patterns and parity only) still loads, evaluating exactly as
    the sum of its pattern and parity weights (within +-64 discs, as every evaluation)."""
    import json
    import struct
    import zlib

    from cythello.eval import weights as w
    rng = np.random.default_rng(3)
    old = rng.integers(-500, 500, size=(patterns.N_STAGES, patterns.PACKED_SIZE_0_2)).astype("<i2")
    header = json.dumps({"layout": patterns.LAYOUT_0_2, "provenance": {"old": True}}).encode()
    payload = zlib.compress(old.tobytes())
    body = (w.MAGIC + struct.pack("<II", w.FORMAT_VERSION, len(header)) + header
            + struct.pack("<I", len(payload)) + payload)
    path = tmp_path / "old.weights"
    path.write_bytes(_resealed(body))
    loaded = load_weights(path)
    assert loaded.info["old"] is True
    boards = [b for b in random_boards(300, seed=4) if not b.is_game_over()]
    own, opp = bitboards(boards)
    idx = feature_indices(own, opp)
    stages = [patterns.stage_of(int(64 - bin(int(p | o)).count("1"))) for p, o in zip(own, opp)]
    table = w.unpack(np.concatenate(
        [old, np.zeros((patterns.N_STAGES, patterns.packed_size() - old.shape[1]), "<i2")], 1))
    expected = [min(64.0, max(-64.0, table[s, idx[i, :47]].astype(np.int64).sum()
                                  / patterns.SCALE)) for i, s in enumerate(stages)]
    assert np.array_equal(loaded.evaluate_many(own, opp), expected)
    # Any other layout is refused by name.
    header = json.dumps({"layout": "0123456789abcdef", "provenance": {}}).encode()
    path.write_bytes(_resealed(w.MAGIC + struct.pack("<II", w.FORMAT_VERSION, len(header))
                               + header + struct.pack("<I", len(payload)) + payload))
    with pytest.raises(WeightsError, match="0123456789abcdef"):
        load_weights(path)


def _resealed(body):
    """A weights file around ``body`` with a valid checksum."""
    import struct
    import zlib
    return body + struct.pack("<I", zlib.crc32(body))


def test_hostile_weights_files_are_refused_cheaply(tmp_path):
    """Devices, FIFOs, zlib bombs and odd JSON headers with valid checksums: each one a
    WeightsError naming the file, without reading without bound, blocking or a traceback
    of another kind."""
    import json
    import os
    import struct
    import subprocess
    import sys
    import zlib

    from cythello.eval import weights as w
    packed, header = read_weights(DEFAULT_PATH)
    good = tmp_path / "good.weights"
    save_weights(good, packed, {})
    data = good.read_bytes()
    hlen = struct.unpack("<I", data[12:16])[0]
    head = data[:12]
    payload_part = data[16 + hlen:-4]

    def with_header(obj_bytes):
        return _resealed(head + struct.pack("<I", len(obj_bytes)) + obj_bytes + payload_part)

    bomb = zlib.compress(b"\0" * (200 << 20), 9)
    cases = {
        "list header": with_header(b"[1, 2]"),
        "deep header": with_header(b"[" * 100_000 + b"]" * 100_000),
        "provenance 5": with_header(json.dumps({"layout": patterns.layout_id(),
                                                "provenance": 5}).encode()),
        "bomb": _resealed(data[:16 + hlen] + struct.pack("<I", len(bomb)) + bomb),
    }
    for name, content in cases.items():
        path = tmp_path / f"{name.replace(' ', '_')}.weights"
        path.write_bytes(content)
        with pytest.raises(WeightsError, match=str(path.name)):
            load_weights(path)
    if os.path.exists("/dev/zero"):
        with pytest.raises(WeightsError, match="not a regular file"):
            load_weights("/dev/zero")
    with pytest.raises(WeightsError, match="not a regular file"):
        load_weights(tmp_path)
    big = tmp_path / "big.weights"
    with open(big, "wb") as f:
        f.truncate(w.MAX_FILE + 1)
    with pytest.raises(WeightsError, match="more than"):
        load_weights(big)
    if hasattr(os, "mkfifo"):
        fifo = tmp_path / "fifo.weights"
        os.mkfifo(fifo)
        code = ("from cythello.eval.weights import load_weights\n"
                "from cythello.errors import WeightsError\n"
                f"try:\n    load_weights({str(fifo)!r})\nexcept WeightsError as e:\n"
                "    print(e)\n")
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             timeout=60)
        assert "not a regular file" in out.stdout, out


def test_loaded_weights_go_to_worker_processes(tmp_path):
    """A player holding weights loaded from a file pickles (matches and self-play send
    players to worker processes), by content."""
    import pickle
    packed, _ = read_weights(DEFAULT_PATH)
    path = tmp_path / "mine.weights"
    save_weights(path, packed, {"note": "mine"})
    weights = load_weights(path)
    again = pickle.loads(pickle.dumps(weights))
    assert np.array_equal(again.array, weights.array) and again.info == weights.info
    player = cy.MCTSPlayer(eval_weights=weights, iterations=50, seed=1)
    copy = pickle.loads(pickle.dumps(player))
    board = cy.Board.from_transcript("f5d6c3")
    assert copy.search(board).best_move == player.search(board).best_move


def test_weights_for_another_layout_are_refused(tmp_path, monkeypatch):
    packed, _ = read_weights(DEFAULT_PATH)
    path = tmp_path / "w.weights"
    save_weights(path, packed, {})
    monkeypatch.setattr(patterns, "layout_id", lambda: "0000000000000000")
    with pytest.raises(WeightsError, match="feature layout"):
        read_weights(path)


def negamax(board, depth, weights):
    """The plain minimax of the evaluation: a pass uses no depth, even at the leaves (a
    side that must pass is valued from its opponent's turn)."""
    if board.is_game_over():
        return board.outcome().score_for(board.turn)
    if board.must_pass():
        board.push(cy.PASS)
        value = -negamax(board, depth, weights)
        board.pop()
        return value
    if depth == 0:
        return weights.evaluate(board)
    best = -1e9
    for m in list(board.legal_moves):
        board.push(m)
        best = max(best, -negamax(board, depth - 1, weights))
        board.pop()
    return best


def test_midgame_search_is_negamax(random_weights):
    boards = [b for b in random_boards(40, seed=3) if not b.is_game_over()]
    for depth in (0, 1, 2, 3):
        values = search_many(*bitboards(boards), depth, random_weights)
        for board, value in zip(boards, values):
            assert value == pytest.approx(negamax(board.copy(), depth, random_weights)), depth
    score, move, nodes = search(boards[0], 2, random_weights)
    assert nodes > 1 and (move == cy.PASS or boards[0].is_legal(move))
    with pytest.raises(ValueError):
        search(boards[0], 99, random_weights)


def test_children_search_is_each_childs_search(random_weights):
    """The solver's move ordering reads the pattern indices once for all the children of
    a node: the same values and nodes as a search from each child."""
    from cythello.eval._patterns import _children_check
    boards = [b for b in random_boards(40, seed=5) if b.legal_moves]
    for depth in (0, 1, 2):
        for alpha, beta in ((-(1 << 20), 1 << 20), (-300, 200)):
            for board in boards:
                together, each = _children_check(random_weights, board, depth, alpha, beta)
                assert together == each, (board, depth)
                assert together[1] >= len(board.legal_moves)


def test_fit_recovers_planted_weights_of_candidate_slots():
    """fit_stage with ``size`` beyond the shipped layout solves for appended candidate
    features too (how research/evaluation/capacity.py tries new patterns)."""
    from cythello.training.fit import fit_stage, packed_features, predict
    boards = [b for b in random_boards(3000, seed=11) if not b.is_game_over()]
    feats = packed_features(*bitboards(boards))
    size = patterns.packed_size()
    rng = np.random.default_rng(2)
    extra = (size + rng.integers(0, 5, len(boards))).astype(np.int32)[:, None]
    all_feats = np.concatenate([feats, extra], axis=1)
    planted = np.zeros(size + 5)
    planted[size:] = [-6.0, -3.0, 0.0, 3.0, 6.0]
    labels = predict(planted, all_feats)
    w = fit_stage(all_feats, labels, ridge=1e-3, size=size + 5, iterations=500)
    assert w.shape == (size + 5,)
    assert np.abs(predict(w, all_feats) - labels).max() < 0.05
    # Only differences are identifiable (an offset can move between feature groups).
    assert np.allclose(np.diff(w[size:]), 3.0, atol=0.05)


def test_huber_fit_resists_outliers():
    """fit_stage_huber: labels that are planted weights plus a few wild values (as exact
    scores with tactics the patterns cannot see) pull the squared fit off the planted
    weights and the Huber fit much less; with no outliers the two agree."""
    from cythello.training.fit import fit_stage, fit_stage_huber, packed_features, predict
    boards = [b for b in random_boards(3000, seed=12) if not b.is_game_over()]
    feats = packed_features(*bitboards(boards))
    rng = np.random.default_rng(5)
    planted = np.zeros(patterns.packed_size())
    used = np.unique(feats)
    planted[used] = rng.normal(0, 2, len(used))
    clean = predict(planted, feats)
    wild = rng.random(len(clean)) < 0.1
    labels = clean + np.where(wild, rng.choice([-40.0, 40.0], len(clean)), 0.0)
    squared = fit_stage(feats, labels, ridge=1.0, iterations=500)
    huber = fit_stage_huber(feats, labels, ridge=1.0, delta=4.0)
    err_sq = np.abs(predict(squared, feats) - clean)[~wild].mean()
    err_hu = np.abs(predict(huber, feats) - clean)[~wild].mean()
    assert err_hu < 0.75 * err_sq, (err_hu, err_sq)
    same = fit_stage_huber(feats, clean, ridge=1.0, delta=1e6)
    assert np.allclose(predict(same, feats), predict(fit_stage(feats, clean, ridge=1.0), feats),
                       atol=1e-6)


def test_training_pipeline_end_to_end(tmp_path):
    from cythello.training import preset, run
    config = preset("tiny")
    report = run(config, tmp_path / "run", tmp_path / "a.weights", workers=2, log=None)
    assert len(report["rounds"]) == config.rounds
    weights = load_weights(tmp_path / "a.weights")
    assert weights.info["trained_by"] == "cythello.training.pipeline"
    assert weights.info["config"]["seed"] == config.seed
    # Reproducible: the same preset and seed give the same file, however many workers.
    run(config, tmp_path / "run2", tmp_path / "b.weights", workers=1, log=None)
    a, _ = read_weights(tmp_path / "a.weights")
    b, _ = read_weights(tmp_path / "b.weights")
    assert np.array_equal(a, b)
    # The fit explains its exact labels better than chance.
    stage = report["rounds"][-1]["stages"][1]
    assert stage["labels"] == "exact" and stage["train_mae"] < 8


def test_exact_labels_are_remembered_across_rounds(tmp_path, monkeypatch):
    """The exact-label memory keeps the bitboards whole (uint64, not float64), so a later
    round finds every position an earlier one solved."""
    from cythello.training import pipeline
    boards = [b for b in random_boards(60, seed=9) if 0 < b.empties() <= 8
              and not b.is_game_over()][:20]
    own, opp = bitboards(boards)
    memory = tmp_path / "exact.npz"
    first = pipeline._exact_with_memory(own, opp, 1, memory)
    with np.load(memory) as m:
        assert np.array_equal(m["own"], own) and np.array_equal(m["opp"], opp)
    monkeypatch.setattr(pipeline, "exact_scores", lambda *a: pytest.fail("solved again"))
    assert np.array_equal(pipeline._exact_with_memory(own, opp, 1, memory), first)


def test_training_pipeline_with_puct_self_play(tmp_path):
    """The full preset's player: PUCT games guided by a start evaluation, on 1 or 2
    processes alike; a bad start is refused before any work."""
    from cythello.errors import SettingsError
    from cythello.training import preset, run
    config = preset("tiny", player="puct", start_weights=str(DEFAULT_PATH), simulations=16)
    run(config, tmp_path / "a", tmp_path / "a.weights", workers=2, log=None)
    run(config, tmp_path / "b", tmp_path / "b.weights", workers=1, log=None)
    a, header = read_weights(tmp_path / "a.weights")
    assert np.array_equal(a, read_weights(tmp_path / "b.weights")[0])
    assert header["provenance"]["start_weights_sha256"] == \
        __import__("hashlib").sha256(DEFAULT_PATH.read_bytes()).hexdigest()
    assert (tmp_path / "a" / "selfplay-r0" / "run.json").read_text().count("PatternEvaluator")
    with pytest.raises(SettingsError, match="start_weights"):
        run(preset("tiny", player="puct"), tmp_path / "c", tmp_path / "c.weights", log=None)
    with pytest.raises(WeightsError):
        run(preset("tiny", player="puct", start_weights=str(tmp_path / "none.weights")),
            tmp_path / "c", tmp_path / "c.weights", log=None)
    with pytest.raises(SettingsError, match="huber"):
        run(preset("tiny", huber=-1.0), tmp_path / "c", tmp_path / "c.weights", log=None)
    with pytest.raises(SettingsError, match="player"):
        run(preset("tiny", player="alphabeta"), tmp_path / "c", tmp_path / "c.weights",
            log=None)


def test_calibration_makes_the_evaluation_agree_with_itself():
    from cythello.eval import PatternWeights
    from cythello.eval.weights import DEFAULT_PATH, unpack
    from cythello.training.calibrate import apply_offsets, calibrate, consistency, stage_offsets
    packed, _ = read_weights(DEFAULT_PATH)
    # A known bias: every bootstrapped stage favours the side to move by 3 discs more than
    # the stage before it; calibration must find and remove it.
    bias = np.zeros((patterns.N_STAGES, 2))
    bias[4:] = 3.0 * np.arange(1, patterns.N_STAGES - 3)[:, None]
    biased = apply_offsets(packed, -bias)
    rng = np.random.default_rng(3)
    boards = []
    while len(boards) < 600:
        b = cy.Board()
        for _ in range(int(rng.integers(0, 56))):
            moves = list(b.legal_moves)
            if not moves:
                break
            b.push(moves[int(rng.integers(len(moves)))])
        if len(b.legal_moves):
            boards.append(b)

    def gaps(p):
        return consistency(PatternWeights(unpack(p), {}), boards)

    calibrated, offsets = calibrate(biased, boards, exact_empties=16)
    assert np.all(offsets[:4] == 0)                          # exact stages untouched
    assert np.array_equal(calibrated[:4], biased[:4])
    before = {e: g for e, (g, _) in gaps(biased).items() if e > 16}
    after = {e: g for e, (g, _) in gaps(calibrated).items() if e > 16}
    assert np.mean(np.abs(list(before.values()))) > 3
    assert np.mean(np.abs(list(after.values()))) < 0.4 * np.mean(np.abs(list(before.values())))
    # No gaps beyond the exact stages: nothing to take off.
    assert not stage_offsets({e: (5.0, 10) for e in range(1, 17)}, 16).any()


def test_shipped_weights_beat_the_square_table():
    """The held-out positions with exact scores: the learned evaluation's error must be well
    under that of a disc-count evaluation (a weak but honest bar for every build)."""
    path = Path(__file__).parent / "data" / "heldout-sample.txt"
    rows = [line.rsplit(" ", 1) for line in path.read_text().splitlines() if line.strip()]
    boards = [cy.Board(text) for text, _ in rows]
    exact = np.array([int(s) for _, s in rows], dtype=float)
    ours = np.abs(np.array([evaluate(b) for b in boards]) - exact).mean()
    discs = np.array([b.discs(b.turn) - b.discs(1 - b.turn) for b in boards], dtype=float)
    a = np.vstack([discs, np.ones_like(discs)]).T
    coef, *_ = np.linalg.lstsq(a, exact, rcond=None)
    baseline = np.abs(a @ coef - exact).mean()
    assert ours < 0.8 * baseline, (ours, baseline)


def test_batched_entry_points_check_positions_alike():
    """Evaluation, features and the batched alpha-beta search share one position check."""
    from cythello.eval import default_weights
    from cythello.eval._patterns import feature_indices
    from cythello.search.alphabeta._midgame import search_many
    weights = default_weights()
    calls = [weights.evaluate_many, feature_indices,
             lambda own, opp: search_many(own, opp, 1, weights)]
    for call in calls:
        with pytest.raises(ValueError, match="one length"):
            call([1, 2], [4])
        with pytest.raises(ValueError, match="one length"):
            call(np.zeros((2, 2)), np.zeros((2, 2)))
        with pytest.raises(ValueError, match="both own and opp"):
            call([1], [1])
        assert len(call([0x0000000810000000], [0x0000001008000000])) == 1
