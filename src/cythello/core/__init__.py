"""The C core: Othello rules on bitboards, the Board, perft."""
