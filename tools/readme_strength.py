"""The README's strength table, written from the results file the strength page is drawn
from (``docs/results/data/matches.csv``), so that the two cannot disagree.

    python3 tools/readme_strength.py            # exit 1 if the README's table is stale
    python3 tools/readme_strength.py --write    # rewrite it from the results file

The rows are the matches a newcomer asks about first (the expert against the classic
search, the levels' ladder, what time buys), each the latest row of the results file for
its pairing from balanced openings; ``tests/test_docs.py`` checks the README against it.
"""
import argparse
import csv
import sys
from pathlib import Path
from typing import Dict, List, Optional

ROOT = Path(__file__).resolve().parents[1]
MATCHES = ROOT / "docs" / "results" / "data" / "matches.csv"
README = ROOT / "README.md"
BEGIN = "<!-- strength: written by tools/readme_strength.py from docs/results/data/matches.csv -->"
END = "<!-- end of strength -->"

# (what the row says, player, opponent) as the results file names them.
ROWS = (
    ("**the expert level** (PUCT) against alpha-beta with Multi-ProbCut, 0.25 s a move",
     "expert", "alphabeta:time=0.25,probcut=1.5"),
    ("the same at 1 s", "expert", "alphabeta:time=1,probcut=1.5"),
    ("the same at 4 s", "expert", "alphabeta:time=4,probcut=1.5"),
    ("the expert at 1 s against the hard level (8,000 simulations a move)", "expert:time=1",
     "hard"),
    ("the hard level against the medium level", "hard", "medium"),
    ("the medium level against the easy level", "medium", "easy"),
    ("the easy level against random moves", "easy", "random"),
    ("the expert level, twice the time: 0.5 s against 0.25 s", "expert:time=0.5",
     "expert:time=0.25"),
    ("1 s against 0.5 s", "expert:time=1", "expert:time=0.5"),
    ("2 s against 1 s", "expert:time=2", "expert:time=1"),
    ("4 s against 2 s", "expert:time=4", "expert:time=2"),
)


def _latest(rows: List[Dict[str, str]], player: str, opponent: str) -> Dict[str, str]:
    found: Optional[Dict[str, str]] = None
    for row in rows:
        if row["openings"] == "balanced" and (row["player"], row["opponent"]) == (player, opponent):
            found = row
    if found is None:
        raise SystemExit(f"readme_strength: no balanced match of {player} against {opponent} "
                         f"in {MATCHES.relative_to(ROOT)}")
    return found


def _elo(row: Dict[str, str]) -> str:
    if not row["interval"]:           # every pair won: only a bound
        return f"above {int(row['elo']):+d}"
    return f"{int(row['elo']):+d} ± {row['interval']}"


def table(rows: Optional[List[Dict[str, str]]] = None) -> str:
    """The README's section between its markers."""
    if rows is None:
        with MATCHES.open(encoding="utf-8") as f:
            rows = list(csv.DictReader(f))
    lines = [BEGIN,
             "| strength, balanced openings, paired | games | Elo | discs a game | command |",
             "|---|---|---|---|---|"]
    for what, player, opponent in ROWS:
        row = _latest(rows, player, opponent)
        discs = f"{float(row['discs']):+.2f} ± {row['discs_interval']}" if row["discs"] else ""
        lines.append(f"| {what} | {row['games']} | {_elo(row)} | {discs} | "
                     f"`{row['command']}` |")
    lines.append(END)
    return "\n".join(lines)


def current(text: str) -> str:
    """The README's section as it stands (empty when the markers are missing)."""
    if BEGIN not in text or END not in text:
        return ""
    start = text.index(BEGIN)
    return text[start:text.index(END, start) + len(END)]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--write", action="store_true", help="rewrite the README's table")
    args = ap.parse_args()
    text = README.read_text(encoding="utf-8")
    old, new = current(text), table()
    if not old:
        print(f"readme_strength: {README.name} has no {BEGIN!r} ... {END!r} section",
              file=sys.stderr)
        return 1
    if old == new:
        return 0
    if args.write:
        README.write_text(text.replace(old, new), encoding="utf-8")
        print(f"rewrote the strength table of {README.name}")
        return 0
    print(f"readme_strength: {README.name}'s strength table is not the results file's; "
          "run python3 tools/readme_strength.py --write", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
