"""Search: one engine shell over three searches, each in its own sub-package.

- the shell, here: ``engine.py`` (the :class:`~.engine.Engine` every player is, over a
  search backend), ``limits.py``, ``turns.py``, ``clock.py``, ``book_play.py``,
  ``results.py``, ``states.py``, ``settings.py`` (what every settings type shares),
  ``presets.py``, ``phases.py`` (a tree search that hands the last moves to alpha-beta),
  ``analysis.py``, ``players.py`` (the player protocol, the random baseline), and the C
  contracts the two tree searches share (``_batch.pxd``, ``_recycling.pxd``);
- ``uct/``: UCT, :class:`~cythello.MCTSPlayer`;
- ``puct/``: PUCT, :class:`~cythello.PUCTPlayer`;
- ``alphabeta/``: the classic alpha-beta, :class:`~cythello.AlphaBetaPlayer` (its
  functions for scripts: :mod:`.midgame`);
- ``endgame/``: the exact solver and its selective passes, and how a player hands the last
  moves to them.

Each search package holds its C modules, its settings type (``settings.py``) and its
backend with its player (``search.py``); a search imports the shell and the endgame, never
another search but alpha-beta, to which the tree searches hand the game's end.
"""
