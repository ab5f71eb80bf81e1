"""Search: one engine shell (``engine.py``) over three searches -- UCT (``uct.py`` over
``_mcts.pyx``), PUCT (``puct.py`` over ``_puct.pyx``) and alpha-beta (``alphabeta.py``
over ``_midgame.pyx``) -- and the endgame (the ``endgame/`` sub-package: the exact solver
and its selective passes, and how a player hands the last moves to them), with the pieces
the shell shares: limits, turns, clocks, the book's move, settings and results."""
