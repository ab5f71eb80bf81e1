"""The results pages' plots, drawn when the documentation is built from result files in
the repository (no hand-made pictures): plain SVG, no plotting library needed.

- ``strength.svg``: Elo with its 95 % interval for each match of
  ``docs/results/data/matches.csv``;
- ``probcut.svg``: Multi-ProbCut's spread, measured (``research/probcut/scores.csv``)
  against the fitted model, by empties, for the depth pairs the search uses.
"""
from __future__ import annotations

import csv
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


def strength(rows: List[Dict[str, str]]) -> str:
    """Horizontal bars: each match's Elo and its interval, zero marked."""
    label_w, plot_w, row_h, top = 420, 360, 26, 30
    lo = min(float(r["elo"]) - float(r["interval"]) for r in rows)
    hi = max(float(r["elo"]) + float(r["interval"]) for r in rows)
    lo, hi = min(lo, 0.0) - 20, max(hi, 0.0) + 20

    def x(v: float) -> float:
        return label_w + (v - lo) / (hi - lo) * plot_w

    body = [f'<text x="{label_w}" y="18" {FONT} font-weight="bold">Elo of the first '
            'player, 95 % interval (paired openings, equal time)</text>',
            f'<line x1="{x(0):.1f}" y1="{top - 6}" x2="{x(0):.1f}" '
            f'y2="{top + row_h * len(rows)}" stroke="#888" stroke-dasharray="4 3"/>']
    for i, r in enumerate(rows):
        y = top + i * row_h + row_h / 2
        elo, ci = float(r["elo"]), float(r["interval"])
        colour = "#1565c0" if elo - ci > 0 else "#c62828" if elo + ci < 0 else "#757575"
        body += [f'<text x="{label_w - 8}" y="{y + 4:.1f}" text-anchor="end" {FONT}>'
                 f'{r["player"]} vs {r["opponent"]}, {r["seconds"]} s</text>',
                 f'<line x1="{x(elo - ci):.1f}" y1="{y:.1f}" x2="{x(elo + ci):.1f}" '
                 f'y2="{y:.1f}" stroke="{colour}" stroke-width="2"/>',
                 f'<circle cx="{x(elo):.1f}" cy="{y:.1f}" r="4" fill="{colour}"/>',
                 f'<text x="{x(elo + ci) + 6:.1f}" y="{y + 4:.1f}" {FONT}>'
                 f'{elo:+.0f} ± {ci:.0f}</text>']
    return _svg(label_w + plot_w + 90, top + row_h * len(rows) + 10, body)


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
    text = (ROOT / "src/cythello/search/_probcut_fit.pxi").read_text()
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
    matches = list(csv.DictReader((DOCS / "results/data/matches.csv").open()))
    for name, text in (("strength.svg", strength(matches)),
                       ("probcut.svg", probcut(ROOT / "research/probcut/scores.csv", _fit()))):
        path = OUT / name
        if not path.exists() or path.read_text() != text:
            path.write_text(text)
        written.append(path)
    return written


if __name__ == "__main__":
    for p in draw():
        print(p)
