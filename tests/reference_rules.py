"""A deliberately simple, independent Othello rules implementation for differential tests.

Boards are lists of 64 cells (' ', 'X', 'O'); it walks the eight directions square by square
and shares no code or idea with the bitboard core beyond the rules themselves.
"""

DIRECTIONS = [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)]


def other(player):
    return "O" if player == "X" else "X"


def flips(cells, player, sq):
    if cells[sq] != " ":
        return []
    row, col = divmod(sq, 8)
    turned = []
    for dr, dc in DIRECTIONS:
        r, c, line = row + dr, col + dc, []
        while 0 <= r < 8 and 0 <= c < 8 and cells[r * 8 + c] == other(player):
            line.append(r * 8 + c)
            r, c = r + dr, c + dc
        if line and 0 <= r < 8 and 0 <= c < 8 and cells[r * 8 + c] == player:
            turned.extend(line)
    return sorted(turned)


def legal_moves(cells, player):
    return [sq for sq in range(64) if flips(cells, player, sq)]


def play(cells, player, sq):
    new = list(cells)
    for f in flips(cells, player, sq):
        new[f] = player
    new[sq] = player
    return new


def game_over(cells):
    return not legal_moves(cells, "X") and not legal_moves(cells, "O")


def from_board_string(text):
    cells, side = text.split()
    return [" " if ch == "-" else ch for ch in cells], side
