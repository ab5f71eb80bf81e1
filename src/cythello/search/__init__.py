"""Search: the MCTS engine (node pool, UCB1, playouts), the exact endgame solver and the
players built on them."""
