"""The endgame: the exact solver and its selective passes, and how a player hands a
position to them.

* ``_solver.pyx`` (with ``_solver_impl.pxi``, its table, its parallel search and the
  selective cuts' fit ``_solver_probcut.pxi``; ``_solver_v3.pyx`` builds the same search for
  x86-64-v3): the search in C without the GIL, ``Solver``;
* ``solve.py``: the root drivers, ``solve``, ``solve_outcome``, ``solve_moves`` and the
  selective passes ``solve_selective``, with what they answer (``SolveResult``,
  ``EndgamePass``, ``SolveAborted``);
* ``play.py``: the rules by which a searching player solves (by time, at the solver's
  measured pace) or plays the selective passes, and their answers as search results.
"""
from .solve import (
    EndgamePass,
    SolveAborted,
    SolveResult,
    first_guess,
    solve,
    solve_moves,
    solve_outcome,
    solve_selective,
)

__all__ = ["EndgamePass", "SolveAborted", "SolveResult", "first_guess", "solve",
           "solve_moves", "solve_outcome", "solve_selective"]
