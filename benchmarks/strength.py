"""Strength in matches: each pair of games starts from one of the shipped balanced
openings (8 moves in, within 2 discs of even by a depth-20 search; ``--openings random``
for random 4-ply ones), each player black once, so neither side gets the easier colour of
a position.  The result: Elo over the pairs (the pentanomial model) and the mean disc
margin a game, each with its 95% interval, and how the pairs scored; ``--sprt ELO0 ELO1``
stops the match once a sequential test decides.  Games run on ``--workers`` processes.

    python3 benchmarks/strength.py --games 100 --time 0.1 --pair expert,expert-0.1
    python3 benchmarks/strength.py --games 100 --time 1.0 --pair expert,expert-0.1
    python3 benchmarks/strength.py --games 100 --pair "mcts:time=0.1,leaf_eval=1,eval_weights=default" "mcts:time=0.1"
    python3 benchmarks/strength.py --ladder             # each preset against the one below
    python3 benchmarks/strength.py --games 100 --clock 10 --pair "mcts:preset=expert,time_extension=1" expert
    python3 benchmarks/strength.py --games 100 --time 1 --from-start --pair "mcts:preset=expert,book=default,book_variety=1" "mcts:preset=expert,book=none"

Players are any ``cythello match`` spec (presets, ``mcts:key=value,...``,
``alphabeta:depth=N``, ``random``), plus ``expert-0.1``: the expert preset of cythello 0.1.0
(heuristic playouts, square-table prior, no evaluation), the baseline of the knowledge
work, and ``expert-0.3``: 0.3.0's expert (UCT with the evaluation), the baseline of the
search work (the ``expert`` of the matches recorded before the expert level became PUCT).
With ``--time``, both MCTS players and the levels PUCT plays get that many seconds per
move (equal time), whatever their presets say; with ``--clock MAIN[+INC]`` each MCTS player has a game clock
instead (``5:00+2``, or seconds) and budgets its moves from it (equal time per game:
what time management, early stopping and time extension are judged by).  With
``--from-start`` every game starts from the initial position and the players are not
seeded (an opening book's variety then draws other lines in every game); a player with an
opening book gets a line on the moves it played from the book and the time they took.
With ``--from-empties M`` each pair of games starts instead from a position with M empty
squares (a balanced opening played on by the hard level, seeded by ``--seed``): the
match then judges only how the two players play the rest of a game, as an endgame or a
hand-off threshold is judged.  The mean disc margin is a finer measure than the result
when the two players differ in a few moves of each game:

    python3 benchmarks/strength.py --games 100 --time 0.25 --from-empties 34 --pair "puct:time=0.25,alphabeta_empties=34" "puct:time=0.25"

A player limited by simulations plays the same game from the same position: from the
start, only the book's draws make games differ, and a match of hundreds of games may hold
a dozen distinct ones (``--from-start`` says how many it had).  ``--from-book LO-HI``
judges a book on many lines instead: each pair of games starts from a distinct position
(up to symmetry) of the first player's book (or the shipped one) LO to HI moves from the
start, reached by its moves, drawn by ``--seed``, so the book's side plays on in its book
and the other side searches:

    python3 benchmarks/strength.py --games 200 --from-book 6-10 --pair "puct:iterations=8000,endgame_empties=18,book=default,book_variety=1" hard

A sequential test instead of a fixed count: up to ``--games`` games, stopping when the
evidence decides between Elo ELO0 and ELO1 (errors at most ``--alpha``/``--beta``):

    python3 benchmarks/strength.py --games 1000 --time 0.25 --sprt 0 40 --pair "puct:time=0.25,search_depth=3" expert

``--csv FILE`` appends the match as a row of ``docs/results/data/matches.csv``'s form.
"""
import argparse
import csv
import os
import shlex
import sys
import time

import cythello as cy
from cythello.book.store import default_book
from cythello.match import run_match
from cythello.openings import OPENINGS_HELP, balanced_openings, describe_openings, openings_for
from cythello.players import level_player, make_player
from cythello.search.clock import parse_clock
from cythello.search.internals import shared_tree_tuning
from cythello.search.presets import LEVEL_SEARCH, PRESETS
from cythello.stats import SPRT

# cythello 0.1.0's expert preset, kept here as the fixed baseline.
OLD_EXPERT = {"iterations": 200_000, "time_limit": 5.0, "exploration": 1.0,
              "rollout": "heuristic", "endgame_empties": 18, "progressive_bias": 4.0}
# The expert of cythello 0.3.0 (the UCT search with the evaluation, solving by time from
# up to 26 empties): the baseline the levels after it are measured against.
EXPERT_0_3 = {"time_limit": 5.0, "endgame_empties": 26, "endgame_by_time": True,
              "eval_weights": "default", "leaf_eval": 1.0, "minimax_weight": 0.7,
              "exploration": 0.6}


class OnClock:
    """An MCTS player on a game clock: each search gets its budget from the time left, and
    the time it took comes off the clock."""

    def __init__(self, player, clock):
        self.player, self.start, self.clock = player, clock, clock

    def reset(self):
        self.player.reset()
        self.clock = self.start

    def choose_move(self, board):
        moves = list(board.legal_moves)
        if len(moves) == 1:
            return moves[0]
        started = time.monotonic()
        move = self.player.search(board, clock=self.clock).best_move
        self.clock = self.clock.after(time.monotonic() - started)
        return move


class Pondering:
    """A player that thinks on the opponent's time: after each of its moves it ponders
    the position reached (``MCTSPlayer.ponder``) until its next move."""

    def __init__(self, player):
        self.player = player

    def reset(self):
        self.player.reset()                      # ends the pondering of the last game

    def choose_move(self, board):
        move = self.player.choose_move(board)
        after = board.copy(stack=False)
        after.push(move)
        self.player.ponder(after)
        return move


class Batched:
    """A player whose shared-tree searches batch with other constants (hot, flush, own),
    set around each of its moves: the batching is the process's, so the games must run
    here, one at a time (``--workers 1``), and the other player keeps the defaults."""

    def __init__(self, player, tuning):
        self.player, self.tuning = player, tuning

    def reset(self):
        self.player.reset()

    def choose_move(self, board):
        shared_tree_tuning(*self.tuning)
        try:
            return self.player.choose_move(board)
        finally:
            shared_tree_tuning()


def player(spec, seed, move_time, clock=None):
    if spec == "expert-0.1":
        settings = dict(OLD_EXPERT, seed=seed)
    elif spec == "expert-0.3":
        settings = dict(EXPERT_0_3, seed=seed)
    elif spec in PRESETS and LEVEL_SEARCH.get(spec) == "puct" and move_time is not None:
        # A level PUCT plays, at the match's time a move.
        return level_player(spec, seed, time_limit=move_time, iterations=None)
    elif (spec.partition(":")[0] in PRESETS and LEVEL_SEARCH.get(spec.partition(":")[0])
          == "puct" and move_time is not None and "time=" not in spec):
        # A level with settings changed (expert:selective_empties=0): the match's time a
        # move too, unless the spec gives its own (it kept the level's 5 s before).
        return make_player(f"{spec},time={move_time}", seed)
    else:
        made = make_player(spec, seed)
        if not isinstance(made, cy.MCTSPlayer) or move_time is None and clock is None:
            return made
        settings = made.settings.as_dict()
    if move_time is not None:
        settings.update(time_limit=move_time, iterations=None)
    settings["seed"] = seed
    if clock is not None:
        settings.update(time_limit=clock.time_left, iterations=None)
        return OnClock(cy.MCTSPlayer(**settings), clock)
    return cy.MCTSPlayer(**settings)


def positions_at(count, empties, seed):
    """``count`` distinct positions with ``empties`` empty squares, not over: balanced
    openings (in ``seed``'s order) each played on by the hard level (seeded) to that many
    empties."""
    out, seen = [], set()
    for i, opening in enumerate(balanced_openings(seed=seed)):
        board, guide = opening.copy(), level_player("hard", seed=seed * 1000 + i)
        while board.empties() > empties and not board.is_game_over():
            board.push(guide.search(board).best_move)
        key = board.board_string()
        if board.empties() == empties and not board.is_game_over() and key not in seen:
            seen.add(key)
            out.append(board)
            if len(out) == count:
                return out
    raise SystemExit(f"--from-empties {empties}: only {len(out)} positions of {count} found")


def book_openings(count, plies, seed, book):
    """``count`` of the book's positions ``plies[0]`` to ``plies[1]`` moves in, distinct up
    to symmetry (``Book.positions``), drawn by ``seed``."""
    import random
    found = book.positions(*plies)
    if len(found) < count:
        raise SystemExit(f"--from-book {plies[0]}-{plies[1]}: the book holds {len(found)} "
                         f"positions there, not the {count} the games need")
    print(f"openings: {count} of the book's {len(found)} positions {plies[0]} to {plies[1]} "
          f"moves from the start", flush=True)
    return random.Random(seed).sample(found, count)


def most_time_used(result, clock):
    """The most time one side used in one game, as a share of its clock's time."""
    worst = 0.0
    for board, times in zip(result.games, result.times):
        replay, used = cy.Board(), [0.0, 0.0]
        opening = len(board.move_stack) - len(times)        # the opening's moves: no time
        for i, move in enumerate(board.move_stack):
            if i >= opening:
                used[replay.turn] += times[i - opening]
            replay.push(move)
        worst = max(worst, max(used) / (clock.time_left + clock.increment * 30))
    return worst


def book_moves(result, book_player):
    """For each game: the moves the first player took from its book, and their seconds."""
    inner = getattr(book_player, "player", book_player)
    book = getattr(inner, "book", None)
    if book is None:
        return None
    counts, seconds, others = [], [], []
    for g, (final, times) in enumerate(zip(result.games, result.times)):
        mine = 0 if g % 2 == 0 else 1
        board, n, spent = cy.Board(), 0, 0.0
        opening = len(final.move_stack) - len(times)
        for i, move in enumerate(final.move_stack):
            if i >= opening and board.turn == mine and len(board.legal_moves) > 1:
                if board in book:
                    n += 1
                    spent += times[i - opening]
                else:
                    others.append(times[i - opening])
            board.push(move)
        counts.append(n)
        seconds.append(spent)
    return (sum(counts) / len(counts), sum(seconds) / len(seconds),
            sum(others) / max(1, len(others)))


def report(first, second, games, move_time, workers, seed=1, clock=None, ponder=False,
           from_start=False, batching=None, from_empties=None, from_book=None,
           openings_spec="balanced", sprt=None, csv_path=None, command=None):
    one = player(first, None if from_start else 3, move_time, clock)
    if from_start:
        openings = None
    elif from_book is not None:
        book = getattr(getattr(one, "player", one), "book", None) or default_book()
        openings = book_openings(games // 2, from_book, seed, book)
    elif from_empties is not None:
        openings = positions_at(games // 2 + 1, from_empties, seed)
    else:
        openings = openings_for(openings_spec, games // 2 + 1, seed)
    start = time.perf_counter()
    if batching is not None:
        one = Batched(one, batching)
        first += f" (batching {','.join(map(str, batching))})"
    result = run_match(Pondering(one) if ponder else one,
                       player(second, None if from_start else 4, move_time, clock),
                       games, openings=openings, workers=workers, sprt=sprt)
    per_move = f", {move_time:g} s/move" if move_time else ""
    if clock is not None:
        per_move = (f", clock {clock.time_left:g} s + {clock.increment:g} s a game "
                    f"(at most {most_time_used(result, clock):.0%} of it used)")
    if ponder:
        first += " (pondering)"
    if from_empties is not None:
        per_move += f", from {from_empties} empties"
    if from_start:
        distinct = len({tuple(g.move_stack) for g in result.games})
        per_move += f", from the start ({distinct} distinct games)"
    elif from_book is None and from_empties is None:
        per_move += f", {describe_openings(openings_spec)} openings"
    print(f"{first} vs {second}{per_move}: {result.summary()}  "
          f"({time.perf_counter() - start:.0f} s)\n  {result.pairs_summary()}", flush=True)
    if csv_path:
        # Where the games started, as the results file's openings column says it (the
        # strength page leads with the rows from balanced openings only).
        if from_start:
            started = "the start"
        elif from_book is not None:
            started = f"the book's positions {from_book[0]}-{from_book[1]} moves in"
        elif from_empties is not None:
            started = f"{from_empties} empties"
        else:
            started = describe_openings(openings_spec)
        append_row(csv_path, first, second, move_time, result, started, command)
    in_book = book_moves(result, one)
    if in_book is not None:
        print(f"  {first}: {in_book[0]:.1f} moves a game from its book, {in_book[1]:.3f} s "
              f"a game for them; its searched moves took {in_book[2]:.2f} s each",
              flush=True)
    return result


CSV_FIELDS = ["player", "opponent", "seconds", "games", "wins", "draws", "losses", "elo",
              "interval", "command", "openings", "pairs", "pentanomial", "discs",
              "discs_interval", "sprt"]


def append_row(path, first, second, move_time, result, started, command):
    """The match as a row of the results file (its header written if the file is new);
    ``started`` says where its games began."""
    elo, interval = result.elo()
    bound = result.elo_bound()
    if bound is not None:
        # Every game won (or lost): no finite estimate, only the 95 % bound, written with
        # an empty interval (the clipped point estimate, +1200, is no measurement).
        elo, interval = bound, None
    discs, half = result.discs()
    pairs = result.pentanomial()
    row = {"player": first, "opponent": second, "seconds": move_time or "",
           "games": result.played, "wins": result.wins, "draws": result.draws,
           "losses": result.losses, "elo": round(elo),
           "interval": "" if interval is None else round(interval),
           "command": command or "", "openings": started,
           "pairs": pairs.pairs,
           "pentanomial": " ".join(map(str, pairs.counts)), "discs": f"{discs:.2f}",
           "discs_interval": f"{half:.2f}",
           "sprt": "" if result.sprt is None else
           f"[{result.sprt.elo0:g}, {result.sprt.elo1:g}] {result.decision() or 'undecided'}"}
    new = not os.path.exists(path) or os.path.getsize(path) == 0
    with open(path, "a", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, CSV_FIELDS)
        if new:
            writer.writeheader()
        writer.writerow(row)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--time", type=float, help="seconds per move for both players")
    ap.add_argument("--clock", type=parse_clock, metavar="MAIN[+INC]",
                    help="a game clock for each MCTS player instead of --time")
    ap.add_argument("--workers", type=int, default=2, help="games at once (default: 2)")
    ap.add_argument("--pair", nargs="+", metavar="A,B",
                    help="players: 'A,B' or two arguments A B")
    ap.add_argument("--ponder", action="store_true",
                    help="the first player thinks on the opponent's time (give each side a "
                         "core: --workers 1 on two cores)")
    ap.add_argument("--ladder", action="store_true",
                    help="easy vs random, then each preset against the one below")
    ap.add_argument("--from-start", action="store_true",
                    help="every game from the initial position, players unseeded")
    ap.add_argument("--from-empties", type=int, metavar="M",
                    help="every pair of games from a position with M empties (played on "
                         "from a random opening by the hard level)")
    ap.add_argument("--from-book", metavar="LO-HI",
                    help="every pair of games from a distinct position of the first "
                         "player's book (or the shipped one) LO to HI moves from the "
                         "start, e.g. 6-10")
    ap.add_argument("--batching", metavar="HOT,FLUSH,OWN",
                    help="the first player's shared-tree batching: hot nodes from HOT "
                         "visits a thread, flushed every FLUSH iterations, OWN 1/0: "
                         "selection sees a thread's own batch (bench_threads.py sweeps "
                         "them; the games run in this process: --workers 1)")
    ap.add_argument("--openings", default="balanced",
                    help="the start of each pair of games: " + OPENINGS_HELP)
    ap.add_argument("--sprt", nargs=2, type=float, metavar=("ELO0", "ELO1"),
                    help="stop when a sequential probability ratio test decides between "
                         "Elo ELO0 and ELO1 for the first player (--games: the most)")
    ap.add_argument("--alpha", type=float, default=0.05, help="the SPRT's alpha (0.05)")
    ap.add_argument("--beta", type=float, default=0.05, help="the SPRT's beta (0.05)")
    ap.add_argument("--csv", metavar="FILE",
                    help="append each match as a row of a results file (matches.csv's form)")
    ap.add_argument("--seed", type=int, default=1,
                    help="seed of the openings (default: 1; another seed, another sample)")
    args = ap.parse_args()
    try:
        sprt = SPRT(args.sprt[0], args.sprt[1], args.alpha, args.beta) if args.sprt else None
    except (TypeError, ValueError) as exc:
        ap.error(f"--sprt: {exc}")
    # The command that reproduces a match (without where this run wrote its rows), quoted
    # as a shell needs it.
    shown = [a for i, a in enumerate(sys.argv[1:])
             if a != "--csv" and not a.startswith("--csv=") and sys.argv[i] != "--csv"]
    command = "python3 benchmarks/strength.py " + " ".join(shlex.quote(a) for a in shown)
    if args.from_empties is not None and (args.from_start or not 1 <= args.from_empties <= 59):
        ap.error("--from-empties: 1 to 59 empties, not with --from-start")
    from_book = None
    if args.from_book:
        try:
            from_book = tuple(int(v) for v in args.from_book.split("-"))
        except ValueError:
            from_book = ()
        if len(from_book) != 2 or not 1 <= from_book[0] <= from_book[1] <= 59:
            ap.error("--from-book: LO-HI moves from the start, 1 <= LO <= HI <= 59, e.g. 6-10")
        if args.from_start or args.from_empties is not None:
            ap.error("--from-book: not with --from-start or --from-empties")
    batching = None
    if args.batching:
        if args.workers != 1 or args.ponder:
            ap.error("--batching sets this process's search around the first player's "
                     "moves: use --workers 1, without --ponder")
        batching = tuple(int(v) for v in args.batching.split(","))
        if len(batching) != 3:
            ap.error("--batching: HOT,FLUSH,OWN, e.g. 32,256,1")
    if args.pair:
        first, second = (args.pair[0].split(",", 1) if len(args.pair) == 1 else args.pair[:2])
        report(first, second, args.games, args.time, args.workers, seed=args.seed,
               clock=args.clock, ponder=args.ponder, from_start=args.from_start,
               batching=batching, from_empties=args.from_empties, from_book=from_book,
               openings_spec=args.openings, sprt=sprt, csv_path=args.csv, command=command)
    if args.ladder:
        for upper, lower in (("easy", "random"), ("medium", "easy"), ("hard", "medium"),
                             ("expert", "hard")):
            report(upper, lower, args.games, None, args.workers, seed=args.seed,
                   openings_spec=args.openings, sprt=sprt, csv_path=args.csv,
                   command=command)
    if not args.pair and not args.ladder:
        ap.print_help()
    return 0


if __name__ == "__main__":
    sys.exit(main())
