"""Boards as SVG pictures (Jupyter shows ``Board`` objects with them)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Optional
from xml.sax.saxutils import escape

from ..squares import BLACK, FILE_NAMES, PASS

if TYPE_CHECKING:
    from ..core._board import Board

GREEN = "#2e7d32"


def board_svg(board: "Board", last_move: Optional[int] = None, legal: bool = True,
              size: int = 360, coordinates: bool = True,
              best_move: Optional[int] = None) -> str:
    """An SVG document of ``board``: discs, optional coordinates, the legal moves of the side
    to move as small dots, ``last_move`` ringed in red and ``best_move`` (an analysis's
    choice) ringed in blue."""
    margin = size // 16 if coordinates else 0
    cell = (size - 2 * margin) / 8.0
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{size}" height="{size}" '
           f'viewBox="0 0 {size} {size}">',
           f"<title>{escape(board.board_string())}</title>",
           f'<rect width="{size}" height="{size}" fill="#1b4d1e"/>',
           f'<rect x="{margin}" y="{margin}" width="{8 * cell:.1f}" height="{8 * cell:.1f}" '
           f'fill="{GREEN}"/>']
    for i in range(9):
        p = margin + i * cell
        out.append(f'<line x1="{margin}" y1="{p:.1f}" x2="{margin + 8 * cell:.1f}" y2="{p:.1f}" '
                   'stroke="black" stroke-width="1"/>')
        out.append(f'<line x1="{p:.1f}" y1="{margin}" x2="{p:.1f}" y2="{margin + 8 * cell:.1f}" '
                   'stroke="black" stroke-width="1"/>')
    if coordinates:
        font = margin * 0.6
        for i in range(8):
            c = margin + (i + 0.5) * cell
            out.append(f'<text x="{c:.1f}" y="{margin * 0.7:.1f}" font-size="{font:.1f}" '
                       f'text-anchor="middle" fill="white">{FILE_NAMES[i]}</text>')
            out.append(f'<text x="{margin * 0.5:.1f}" y="{c + font / 3:.1f}" font-size="{font:.1f}" '
                       f'text-anchor="middle" fill="white">{i + 1}</text>')
    legal_mask = board.legal_moves_mask if legal else 0
    for sq in range(64):
        cx = margin + (sq % 8 + 0.5) * cell
        cy = margin + (sq // 8 + 0.5) * cell
        piece = board.piece_at(sq)
        if piece is not None:
            fill, stroke = ("black", "#444") if piece == BLACK else ("white", "#999")
            out.append(f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="{cell * 0.42:.1f}" '
                       f'fill="{fill}" stroke="{stroke}"/>')
        elif (legal_mask >> sq) & 1:
            colour = "black" if board.turn == BLACK else "white"
            out.append(f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="{cell * 0.1:.1f}" '
                       f'fill="{colour}" fill-opacity="0.5"/>')
        if last_move is not None and last_move != PASS and sq == last_move:
            out.append(f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="{cell * 0.45:.1f}" fill="none" '
                       'stroke="red" stroke-width="2"/>')
        if best_move is not None and best_move != PASS and sq == best_move:
            out.append(f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="{cell * 0.38:.1f}" fill="none" '
                       'stroke="#1565c0" stroke-width="3"/>')
    out.append("</svg>")
    return "\n".join(out)


def evaluation_graph_svg(points: "list[tuple[int, Optional[float]]]", title: str = "",
                         width: int = 640, height: int = 240) -> str:
    """A line chart of evaluations over a game (``(ply, discs)`` pairs; None leaves a gap),
    from -64 to +64 discs with the zero line marked, as NBoard's graph shows it."""
    margin = 36
    plies = max((p for p, _ in points), default=1) or 1
    inner_w, inner_h = width - 2 * margin, height - 2 * margin

    def x(ply: float) -> float:
        return margin + inner_w * ply / plies

    def y(value: float) -> float:
        return margin + inner_h * (64 - max(-64.0, min(64.0, value))) / 128

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}">',
           f"<title>{escape(title)}</title>",
           f'<rect width="{width}" height="{height}" fill="white"/>',
           f'<rect x="{margin}" y="{margin}" width="{inner_w}" height="{inner_h}" fill="#f4f8f4" '
           'stroke="#888"/>']
    for value in (-64, -32, 0, 32, 64):
        stroke = "#444" if value == 0 else "#ccc"
        out.append(f'<line x1="{margin}" y1="{y(value):.1f}" x2="{margin + inner_w}" '
                   f'y2="{y(value):.1f}" stroke="{stroke}"/>')
        out.append(f'<text x="{margin - 4}" y="{y(value) + 4:.1f}" font-size="10" '
                   f'text-anchor="end">{value:+d}</text>')
    for ply in range(0, plies + 1, 10):
        out.append(f'<text x="{x(ply):.1f}" y="{height - margin + 14}" font-size="10" '
                   f'text-anchor="middle">{ply}</text>')
    segment: "list[str]" = []
    ends: "list[tuple[int, Optional[float]]]" = [(plies + 1, None)]
    for ply, point in list(points) + ends:
        if point is None:
            if len(segment) > 1:
                out.append(f'<polyline points="{" ".join(segment)}" fill="none" '
                           f'stroke="{GREEN}" stroke-width="2"/>')
            segment = []
        else:
            segment.append(f"{x(ply):.1f},{y(point):.1f}")
    if title:
        out.append(f'<text x="{width / 2:.1f}" y="{margin - 12}" font-size="12" '
                   f'text-anchor="middle">{escape(title)}</text>')
    out.append("</svg>")
    return "\n".join(out)
