"""The results pages' plots, drawn when the documentation is built from result files in
the repository (no hand-made pictures): plain SVG, no plotting library needed.

- ``strength.svg``: Elo with its 95 % interval for each match from balanced openings of
  ``docs/results/data/matches.csv``, and ``matches-balanced.csv``, the same as a narrow
  table;
- ``elo-for-time.svg``: the expert level's Elo against its time a move, from the chain of
  doublings among those matches;
- ``probcut.svg``: Multi-ProbCut's spread, measured (``research/probcut/scores.csv``)
  against the fitted model, by empties, for the depth pairs the search uses.
"""
from __future__ import annotations

import csv
import io
import math
from pathlib import Path
from typing import Dict, List, Sequence, Tuple

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
OUT = DOCS / "_generated"
FONT = 'font-family="sans-serif" font-size="12"'


def _svg(width: int, height: int, body: Sequence[str]) -> str:
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}">\n<rect width="100%" height="100%" '
            f'fill="white"/>\n' + "\n".join(body) + "\n</svg>\n")


def _short(spec: str) -> str:
    """A player's spec as a plot's label says it: ``expert 0.5 s``, ``alpha-beta``."""
    name, _, rest = spec.partition(":")
    settings = dict(item.partition("=")[::2] for item in rest.split(",") if item)
    if name in ("easy", "medium", "hard", "expert"):
        return f"{name} {settings['time']} s" if "time" in settings else name
    if name == "expert-0.3":
        return "0.3.0's UCT expert"
    if name == "alphabeta":
        # Multi-ProbCut 1.5 by default since 0.4; probcut=0 is the full-width search.
        full = settings.get("probcut", "1.5") in ("0", "0.0")
        return "alpha-beta, full width" if full else "alpha-beta"
    if name == "puct" and "search_depth" in settings:
        return f"PUCT, depth-{settings['search_depth']} leaves"
    return {"mcts": "UCT", "puct": "PUCT"}.get(name, spec)


def balanced(rows: List[Dict[str, str]]) -> List[Dict[str, str]]:
    """The matches played from balanced openings (the ones the results lead with)."""
    return [r for r in rows if r.get("openings") == "balanced"]


LEVELS = ("random", "easy", "medium", "hard", "expert")


def ladder(row: Dict[str, str]) -> bool:
    """A match of one level against another (the ladder): hundreds of Elo apart, so the
    levels' section gives them as a table and the interval plot leaves them out."""
    a, b = (row[k].partition(":")[0] for k in ("player", "opponent"))
    return a != b and a in LEVELS and b in LEVELS


def _elo_text(row: Dict[str, str]) -> str:
    """``+119 ± 66``; a match won or lost in every game has only a bound: ``above +566``
    (in words: a leading ``>`` would start a quotation in the table's markup)."""
    if not row["interval"]:
        return f"{'above' if int(row['elo']) > 0 else 'below'} {int(row['elo']):+d}"
    return f"{int(row['elo']):+d} ± {row['interval']}"


def _label(row: Dict[str, str]) -> str:
    time = f", {float(row['seconds']):g} s a move" if row["seconds"] else ""
    return f"{_short(row['player'])} against {_short(row['opponent'])}{time}"


def strength(rows: List[Dict[str, str]]) -> str:
    """Each match from balanced openings: its label above a bar of its Elo with the 95 %
    interval, zero marked; narrow enough to read on a phone (480 units, labels whole).
    The ladder's matches and those with only a bound are in the table, not here."""
    rows = [r for r in balanced(rows) if r["interval"] and not ladder(r)]
    width, left, right, row_h, top = 480, 10, 110, 44, 34
    plot_w = width - left - right
    lo = min([float(r["elo"]) - float(r["interval"]) for r in rows] + [0.0]) - 20
    hi = max([float(r["elo"]) + float(r["interval"]) for r in rows] + [0.0]) + 20

    def x(v: float) -> float:
        return left + (v - lo) / (hi - lo) * plot_w

    body = [f'<text x="{left}" y="16" {FONT} font-weight="bold">Elo of the first player, '
            '95 % interval (balanced openings)</text>',
            f'<line x1="{x(0):.1f}" y1="{top - 4}" x2="{x(0):.1f}" '
            f'y2="{top + row_h * len(rows)}" stroke="#888" stroke-dasharray="4 3"/>']
    for i, r in enumerate(rows):
        y = top + i * row_h
        elo, ci = float(r["elo"]), float(r["interval"])
        colour = "#1565c0" if elo - ci > 0 else "#c62828" if elo + ci < 0 else "#757575"
        discs = f", {float(r['discs']):+.1f} discs" if r.get("discs") else ""
        body += [f'<text x="{left}" y="{y + 12}" {FONT}>{_label(r)} ({r["games"]} games)'
                 '</text>',
                 f'<line x1="{x(elo - ci):.1f}" y1="{y + 26}" x2="{x(elo + ci):.1f}" '
                 f'y2="{y + 26}" stroke="{colour}" stroke-width="2"/>',
                 f'<circle cx="{x(elo):.1f}" cy="{y + 26}" r="4" fill="{colour}"/>',
                 f'<text x="{x(elo + ci) + 6:.1f}" y="{y + 30}" {FONT}>'
                 f'{elo:+.0f} ± {ci:.0f}{discs}</text>']
    return _svg(width, top + row_h * len(rows) + 6, body)


def time_chain(rows: List[Dict[str, str]], level: str = "expert"
               ) -> List[Tuple[float, float, float]]:
    """``(seconds, Elo, margin)`` of ``level`` at each time a move of an unbroken chain of
    doublings measured from balanced openings (``level:time=2T`` against ``level:time=T``),
    Elo counted from the shortest time; the margins add in quadrature along the chain."""
    step: Dict[float, Tuple[float, float]] = {}
    for r in balanced(rows):
        a, b = r["player"].partition(":time=")[::2], r["opponent"].partition(":time=")[::2]
        if a[0] == b[0] == level and a[1] and b[1] and float(a[1]) == 2 * float(b[1]):
            step[float(b[1])] = (float(r["elo"]), float(r["interval"]))
    if not step:
        return []
    t = min(step)
    chain = [(t, 0.0, 0.0)]
    while t in step:
        elo, ci = step[t]
        chain.append((2 * t, chain[-1][1] + elo, math.hypot(chain[-1][2], ci)))
        t *= 2
    return chain


def elo_for_time(rows: List[Dict[str, str]]) -> str:
    """The expert level's Elo against its time a move (log scale), each point with its
    95 % interval from the chain of doublings."""
    chain = time_chain(rows)
    left, top, w, h = 56, 34, 380, 220
    if len(chain) < 2:
        return _svg(480, 60, [f'<text x="10" y="30" {FONT}>No chain of doublings measured '
                              'from balanced openings yet.</text>'])
    t0, t1 = chain[0][0], chain[-1][0]
    e_hi = max(e + m for _, e, m in chain) + 20
    e_lo = min(min(e - m for _, e, m in chain), 0.0) - 20

    def px(t: float) -> float:
        return left + math.log2(t / t0) / max(1e-9, math.log2(t1 / t0)) * w

    def py(v: float) -> float:
        return top + h - (v - e_lo) / (e_hi - e_lo) * h

    body = [f'<text x="10" y="16" {FONT} font-weight="bold">The expert level: Elo against '
            'time a move (from its shortest time)</text>',
            f'<line x1="{left}" y1="{top + h}" x2="{left + w}" y2="{top + h}" stroke="#444"/>',
            f'<line x1="{left}" y1="{top}" x2="{left}" y2="{top + h}" stroke="#444"/>',
            f'<text x="{left + w / 2}" y="{top + h + 34}" text-anchor="middle" {FONT}>'
            'seconds a move (each step twice the time)</text>']
    tick = 100 * math.ceil(e_lo / 100)
    while tick <= e_hi:
        body += [f'<text x="{left - 6}" y="{py(tick) + 4:.1f}" text-anchor="end" {FONT}>'
                 f'{tick:+d}</text>',
                 f'<line x1="{left}" y1="{py(tick):.1f}" x2="{left + w}" y2="{py(tick):.1f}" '
                 'stroke="#ddd"/>']
        tick += 100
    points = " ".join(f"{px(t):.1f},{py(e):.1f}" for t, e, _ in chain)
    body.append(f'<polyline points="{points}" fill="none" stroke="#1565c0" stroke-width="2"/>')
    for t, e, m in chain:
        body += [f'<text x="{px(t):.1f}" y="{top + h + 16}" text-anchor="middle" {FONT}>'
                 f'{t:g}</text>',
                 f'<line x1="{px(t):.1f}" y1="{py(e - m):.1f}" x2="{px(t):.1f}" '
                 f'y2="{py(e + m):.1f}" stroke="#1565c0"/>',
                 f'<circle cx="{px(t):.1f}" cy="{py(e):.1f}" r="4" fill="#1565c0"/>']
        if t != t0:
            body.append(f'<text x="{px(t) - 6:.1f}" y="{py(e) - 8:.1f}" text-anchor="end" '
                        f'{FONT}>{e:+.0f} ± {m:.0f}</text>')
    return _svg(480, top + h + 44, body)


def match_table(rows: List[Dict[str, str]]) -> str:
    """The matches from balanced openings as a narrow table (CSV for the page's table):
    what was played, the Elo and the disc margin with their intervals, the split pairs."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["match", "games", "Elo", "discs a game", "pairs split"])
    for r in balanced(rows):
        counts = [int(c) for c in r["pentanomial"].split()] if r["pentanomial"] else []
        split = f"{counts[2] / sum(counts):.0%}" if counts and sum(counts) else ""
        discs = f"{float(r['discs']):+.2f} ± {float(r['discs_interval']):.2f}" \
            if r["discs"] else ""
        writer.writerow([_label(r), r["games"], _elo_text(r), discs, split])
    return out.getvalue()


def probcut(scores: Path, coef: Dict[str, float]) -> str:
    """Measured RMS of (deep - shallow) by empties for d = 8, 10, 12 and their shallow
    depths, beside the fitted model's sigma."""
    rows = list(csv.reader(scores.open()))[1:]
    pairs = [(8, 4), (10, 4), (12, 6)]
    measured: Dict[Tuple[int, int], Dict[int, List[float]]] = {p: {} for p in pairs}
    for row in rows:
        e = int(row[1])
        vals = [float(v) for v in row[2:] if v != ""]
        for d, s in pairs:
            if d < len(vals) and d < e:
                measured[(d, s)].setdefault(8 * (e // 8) + 4, []).append(vals[d] - vals[s])

    def model(e: float, d: int, s: int) -> float:
        return math.exp(coef["CONST"] + coef["EMPTIES"] * e + coef["DEPTH"] * d
                        + coef["SHALLOW"] * s + coef["ODD_GAP"] * ((d - s) % 2))

    left, top, w, h = 50, 30, 480, 260
    e_lo, e_hi, s_hi = 12, 56, 9.0

    def px(e: float) -> float:
        return left + (e - e_lo) / (e_hi - e_lo) * w

    def py(v: float) -> float:
        return top + h - v / s_hi * h

    colours = ["#1565c0", "#2e7d32", "#c62828"]
    body = [f'<text x="{left}" y="18" {FONT} font-weight="bold">Multi-ProbCut: spread of '
            'the deep score about the shallow one (discs)</text>',
            f'<line x1="{left}" y1="{top + h}" x2="{left + w}" y2="{top + h}" stroke="#444"/>',
            f'<line x1="{left}" y1="{top}" x2="{left}" y2="{top + h}" stroke="#444"/>',
            f'<text x="{left + w / 2}" y="{top + h + 32}" text-anchor="middle" {FONT}>'
            'empty squares</text>']
    for e in range(e_lo, e_hi + 1, 8):
        body.append(f'<text x="{px(e):.1f}" y="{top + h + 16}" text-anchor="middle" '
                    f'{FONT}>{e}</text>')
    for v in range(0, int(s_hi) + 1, 2):
        body.append(f'<text x="{left - 8}" y="{py(v) + 4:.1f}" text-anchor="end" '
                    f'{FONT}>{v}</text>')
    for k, (d, s) in enumerate(pairs):
        c = colours[k]
        line = " ".join(f"{px(e):.1f},{py(model(e, d, s)):.1f}"
                        for e in range(e_lo, e_hi + 1, 2))
        body.append(f'<polyline points="{line}" fill="none" stroke="{c}" stroke-width="2"/>')
        for e, diffs in sorted(measured[(d, s)].items()):
            if len(diffs) >= 8:
                rms = math.sqrt(sum(x * x for x in diffs) / len(diffs))
                body.append(f'<circle cx="{px(e):.1f}" cy="{py(rms):.1f}" r="4" fill="{c}"/>')
        body.append(f'<text x="{left + w + 10}" y="{top + 20 + 18 * k}" fill="{c}" {FONT}>'
                    f'd = {d}, d\u2032 = {s}</text>')
    body.append(f'<text x="{left + w + 10}" y="{top + 80}" {FONT}>dots: measured</text>')
    body.append(f'<text x="{left + w + 10}" y="{top + 98}" {FONT}>lines: the fit</text>')
    return _svg(left + w + 130, top + h + 45, body)


def _fit() -> Dict[str, float]:
    """The fitted coefficients, read from the .pxi the search includes."""
    text = (ROOT / "src/cythello/search/alphabeta/_midgame_probcut.pxi").read_text()
    coef = {}
    for line in text.splitlines():
        if line.startswith("cdef double PROBCUT_"):
            name, value = line[len("cdef double PROBCUT_"):].split("=")
            coef[name.strip()] = float(value)
    return coef


def draw() -> List[Path]:
    """Write every plot; the files written."""
    OUT.mkdir(exist_ok=True)
    written = []
    matches = list(csv.DictReader((DOCS / "results/data/matches.csv").open(encoding="utf-8")))
    for name, text in (("strength.svg", strength(matches)),
                       ("elo-for-time.svg", elo_for_time(matches)),
                       ("matches-balanced.csv", match_table(matches)),
                       ("probcut.svg", probcut(ROOT / "research/probcut/scores.csv", _fit()))):
        path = OUT / name
        if not path.exists() or path.read_text() != text:
            path.write_text(text)
        written.append(path)
    return written


if __name__ == "__main__":
    for p in draw():
        print(p)
