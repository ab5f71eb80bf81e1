"""Boards as SVG pictures (Jupyter shows ``Board`` objects with them)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Optional
from xml.sax.saxutils import escape

from ..squares import BLACK, FILE_NAMES, PASS

if TYPE_CHECKING:
    from ..core._board import Board

GREEN = "#2e7d32"


def board_svg(board: "Board", last_move: Optional[int] = None, legal: bool = True,
              size: int = 360, coordinates: bool = True) -> str:
    """An SVG document of ``board``: discs, optional coordinates, the legal moves of the side
    to move as small dots, and ``last_move`` ringed in red."""
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
    out.append("</svg>")
    return "\n".join(out)
