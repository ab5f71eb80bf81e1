"""The players' presets: the difficulty levels and the classic algorithm, as settings.
``LEVELS`` says what each level plays (search and settings, as ``make_player(level)``
makes it); ``PRESETS`` are the UCT search's settings of the same names.

Data only (no import of a player or of the settings type), so that the settings, the
players and the command line all read them from here.
"""
from __future__ import annotations

import math
from typing import Any, Dict

__all__ = ["PRESETS", "CLASSIC", "LEVELS", "LEVEL_SEARCH", "PUCT_LEVELS", "PUCT_EVALUATORS"]

SQRT2 = math.sqrt(2.0)

# The difficulty presets.  Each level beats the one below it clearly
# (benchmarks/strength.py --ladder).  Medium and up search with the learned evaluation
# (evaluated leaves, implicit minimax backups, exploration 0.6, no progressive bias: the
# settings that won their equal-time matches) and solve exactly from as many empties as
# the exact solver finishes well inside their budget on self-play positions
# (benchmarks/bench_endgame.py --by-empties); the expert, limited by time, from as many
# as its time affords (endgame_by_time).  The matches and measurements behind each choice:
# docs/explanation/engine.md ("Search options", "The engine").
# The expert plays the endgame by the selective passes (Multi-ProbCut 73 % .. 99 %, then
# exact) from as many as 26 empties, where the first pass fits half its time: on the 131
# endgame-accuracy positions at 1 s a move it gave away 0.02 discs a move (99 % best moves)
# where the exact solve by time and PUCT gave away 0.29 (93 %); 0.27 against 0.46 at 0.25 s
# (benchmarks/bench_quality.py --endgame; docs/explanation/engine.md).
SELECTIVE_EMPTIES = 26
_WITH_EVALUATION: Dict[str, object] = {"eval_weights": "default", "leaf_eval": 1.0,
                                       "minimax_weight": 0.7, "exploration": 0.6}
# Plain UCT, as cythello 0.1.0 (and the design it grew from) searched: heuristic playouts,
# UCB1 with c = sqrt(2), no evaluation, no exact solver.  Not a difficulty level but the
# way to ask for the classic algorithm (MCTSPlayer.preset("classic"), mcts:preset=classic);
# self-play players start from it, so that its data stay as they were.
CLASSIC: Dict[str, object] = {"exploration": SQRT2, "rollout": "heuristic", "eval_weights": None,
                              "leaf_eval": 0.0, "minimax_weight": 0.0, "endgame_empties": 0}
PRESETS: Dict[str, Dict[str, object]] = {
    "easy": {**CLASSIC, "iterations": 200, "exploration": 2.0, "rollout": "random"},
    "medium": {"iterations": 1_000, "endgame_empties": 12, **_WITH_EVALUATION},
    "hard": {"iterations": 20_000, "endgame_empties": 18, **_WITH_EVALUATION},
    # The expert is limited by time alone: a game clock or a long analysis gets all of
    # the time it gives (an iteration cap of 5 M cut a 30-minute game's moves at ~10 s).
    "expert": {"time_limit": 5.0, "endgame_empties": 26, "endgame_by_time": True,
               "selective_empties": SELECTIVE_EMPTIES, **_WITH_EVALUATION},
    "classic": CLASSIC,
}

# Which search plays each level, chosen by matches at the level's time between the
# searches (paired openings, equal time: docs/results/strength.md).  PUCT guided by the
# evaluation won medium's and hard's by a wide margin and the expert's at 0.25 s and 1 s
# a move.  Easy stays the classic UCT with random playouts, weak by design.
# ``MCTSPlayer.preset(name)`` is always the UCT search at the level's settings (PRESETS);
# ``cythello.make_player(name)``, the command line and the GUI engines play the level.
LEVEL_SEARCH: Dict[str, str] = {"easy": "uct", "medium": "puct", "hard": "puct",
                                "expert": "puct"}
# The PUCT settings of each level (those PUCT plays, and --search puct at the others):
# budgets of about the UCT level's time (a PUCT simulation costs about 2.4 UCT iterations
# of the expert's kind), the same exact solver.  The expert does not hand its last moves
# to the alpha-beta search (alphabeta_empties): from 30 empties that played level with
# PUCT alone at 1 s and 4 s a move and lost at 0.25 s.  Medium plays from the shipped
# opening book (variety 1 disc), which won its matches from the start and from the book's
# own positions; hard's were level or lost, the expert's settings' lost at 0.25 s and
# were level at 1 s, so they do not (docs/tutorials/book.md, "What it is worth").
# Each PUCT level searches on the cores this process may run on (threads=0, at most
# cythello._cores.THREADS_CAP; CYTHELLO_THREADS, or threads=1 for a game a seed
# reproduces), as the classic engines and their GUIs do; a worker process of a match or
# self-play takes its share of them (cythello._cores.share_cores).  Easy's 200 iterations
# take a few milliseconds on one.
PUCT_LEVELS: Dict[str, Dict[str, object]] = {
    "medium": {"iterations": 400, "endgame_empties": 12, "book": "default",
               "book_variety": 1.0, "threads": 0},
    "hard": {"iterations": 8_000, "endgame_empties": 18, "threads": 0},
    "expert": {"time_limit": 5.0, "endgame_empties": 26, "endgame_by_time": True,
               "selective_empties": SELECTIVE_EMPTIES, "threads": 0},
}
# The pattern evaluator's settings at each PUCT level (``PatternEvaluator(**...)``; none:
# its defaults).  The expert values its leaves by depth-2 searches, which its matches
# against depth 1 favoured as the time a move grew (docs/results/strength.md; the
# expert's time is 5 s).  Medium and hard keep depth 1: their budgets are simulations,
# which depth 2 makes several times slower.
PUCT_EVALUATORS: Dict[str, Dict[str, Any]] = {"expert": {"search_depth": 2}}


def _level(name: str) -> Dict[str, Any]:
    search = LEVEL_SEARCH[name]
    if search == "puct":
        return {"search": "puct", "settings": dict(PUCT_LEVELS[name]),
                "evaluator": dict(PUCT_EVALUATORS.get(name, {}))}
    return {"search": search, "settings": dict(PRESETS[name])}


# What each difficulty level plays, in one place: its search, that search's settings and,
# for PUCT, the pattern evaluator's (``make_player(level)`` plays exactly this; PRESETS
# holds the UCT search's settings of the same names, MCTSPlayer.preset's).
LEVELS: Dict[str, Dict[str, Any]] = {name: _level(name)
                                     for name in ("easy", "medium", "hard", "expert")}

