"""Search: one engine shell (``engine.py``) over three searches -- UCT (``uct.py`` over
``_mcts.pyx``), PUCT (``puct.py`` over ``_puct.pyx``) and alpha-beta (``alphabeta.py``
over ``_midgame.pyx``) -- and the exact endgame solver (``endgame.py`` over
``_endgame.pyx``), with the pieces the shell shares: limits, turns, clocks, the book's
move, the solver's hand-off, settings and results."""
