"""Players from specs: the one place that turns a short text into a player, for the command
line, match workers, benchmarks and scripts alike::

    cythello.make_player("expert")                       # a level: the search that won it
    cythello.make_player("expert:time=1")                # the level at 1 s a move
    cythello.make_player("mcts:time=0.5,threads=2")      # MCTSPlayer settings
    cythello.make_player("puct:time=1,batch_size=16")    # PUCTPlayer with the evaluation
    cythello.make_player("alphabeta:depth=6")
    cythello.make_player("gtp:edax -gtp")                 # an external engine

Settings are parsed and checked by their own settings types; a bad spec is a
:class:`~cythello.errors.SettingsError` naming what is wrong.
"""
from __future__ import annotations

from typing import Any, Callable, Dict, Iterable, Optional

from ._checks import parse_int_text, parse_number_text, shown
from .errors import SettingsError
from .search.alphabeta import AlphaBetaPlayer, AlphaBetaSettings
from .search.players import RandomPlayer
from .search.presets import LEVEL_SEARCH, LEVELS, PRESETS
from .search.settings import SettingsType, parse_setting, setting_names
from .search.uct import MCTSPlayer, SearchSettings

SYNONYMS = SettingsType.SYNONYMS        # time=: the seconds a move, in every spec

__all__ = ["make_player", "level_player", "SPEC_HELP"]

# What a spec can be, for help texts.
SPEC_HELP = ("a preset (easy, medium, hard, expert; expert:time=1 changes its search's "
             "settings), random, mcts:key=value,... (any "
             "MCTSPlayer setting, e.g. mcts:time=0.5,leaf_eval=1), puct:key=value,... "
             "(PUCTPlayer with the pattern evaluation, e.g. puct:time=1,batch_size=16), "
             "alphabeta:depth=N or alphabeta:time=S[,probcut=T], gtp:COMMAND or nboard:COMMAND (an "
             "external engine)")


def _typed(table: Dict[str, Callable[[str], Any]],
           what: Dict[str, str]) -> Callable[[str, str], Any]:
    """A parser of ``key=value`` settings whose values are read by ``table`` (for the
    players whose settings are not search settings)."""
    def parse(key: str, text: str) -> Any:
        try:
            return table[key](text)
        except ValueError:
            raise SettingsError(f"setting {key} expects {what[key]}, not {shown(text)}") from None
    return parse


def _parse_settings(spec: str, rest: str, known: Iterable[str],
                    parse: Callable[[str, str], Any],
                    aliases: Dict[str, str]) -> Dict[str, Any]:
    settings: Dict[str, Any] = {}
    known = set(known)
    for item in filter(None, (i.strip() for i in rest.split(","))):
        key, sep, value = item.partition("=")
        key = aliases.get(key.strip().replace("-", "_"), key.strip().replace("-", "_"))
        if key not in known:
            raise SettingsError(f"unknown setting {shown(key)} in {shown(spec)}; known: "
                                f"{', '.join(sorted(known))}")
        if not sep:
            raise SettingsError(f"setting {key!r} in {shown(spec)} needs a value: {key}=...")
        if key in settings:
            raise SettingsError(f"setting {key!r} is given twice in {shown(spec)}")
        try:
            settings[key] = parse(key, value.strip())
        except SettingsError as exc:
            raise SettingsError(f"{exc} (in {shown(spec)})") from None
    return settings


def _parse_mcts(key: str, text: str) -> Any:
    return text if key == "preset" else parse_setting(key, text, SearchSettings)



_PUCT_EVALUATOR = {"evaluator": "pattern or uniform", "eval_weights": "'default' or a weights file",
                   "prior_scale": "discs, more than 0",
                   "value_scale": "discs, more than 0", "search_depth": "an integer, 0-4",
                   "prior_depth": "an integer, 0 to search_depth - 1",
                   "cache_entries": "an integer, 0 or more"}
_INTEGER_EVALUATOR_SETTINGS = ("search_depth", "prior_depth", "cache_entries")


def _puct_player(spec: str, rest: str, seed: Optional[int]) -> Any:
    """``puct:key=value,...``: PUCT settings, guided by the pattern evaluation
    (``evaluator=pattern``, with its ``eval_weights``, ``prior_scale``, ``value_scale``,
    ``search_depth``, ``prior_depth`` and ``cache_entries``) or by nothing (``evaluator=uniform``)."""
    from .nn import PatternEvaluator, uniform_evaluator
    from .search.puct import PUCTPlayer, PUCTSettings

    def parse(key: str, text: str) -> Any:
        if key == "evaluator":
            if text not in ("pattern", "uniform"):
                raise SettingsError(f"setting evaluator expects pattern or uniform, not {shown(text)}")
            return text
        if key == "eval_weights":
            return text              # the evaluator loads it: a bad file names itself
        if key in _PUCT_EVALUATOR:
            return _typed({key: parse_int_text if key in _INTEGER_EVALUATOR_SETTINGS
                           else parse_number_text},
                          _PUCT_EVALUATOR)(key, text)
        return parse_setting(key, text, PUCTSettings)

    settings = _parse_settings(spec, rest, setting_names(PUCTSettings) + list(_PUCT_EVALUATOR),
                               parse, {**SYNONYMS, "sims": "iterations",
                                       "simulations": "iterations"})
    settings.setdefault("seed", seed)
    kind = settings.pop("evaluator", "pattern")
    own = {k: settings.pop(k) for k in _PUCT_EVALUATOR if k != "evaluator" and k in settings}
    if kind == "uniform":
        if own:
            raise SettingsError(f"{', '.join(own)} belong to evaluator=pattern (in {shown(spec)})")
        return PUCTPlayer(uniform_evaluator, **settings)
    if "eval_weights" in own:                   # PatternEvaluator's name for it
        own["weights"] = own.pop("eval_weights")
    return PUCTPlayer(PatternEvaluator(**own), **settings)


def level_player(name: str, seed: Optional[int] = None, **overrides: Any) -> Any:
    """The player of a preset: for a difficulty level (``easy``, ``medium``, ``hard``,
    ``expert``) what :data:`~cythello.search.presets.LEVELS` says it plays: the search
    that won the level's matches (PUCT guided by the evaluation for medium, hard and
    expert, UCT for easy) at the level's settings (for PUCT also its evaluator's);
    ``classic`` is plain UCT.  ``overrides`` are that search's settings."""
    if name not in PRESETS:
        raise SettingsError(f"unknown preset {name!r}; choose one of {', '.join(PRESETS)}")
    level = LEVELS.get(name)
    overrides = SettingsType.named(overrides)        # time= as everywhere
    if level is not None and level["search"] == "puct":
        from .nn import PatternEvaluator
        from .search.puct import PUCTPlayer
        return PUCTPlayer(PatternEvaluator(**level["evaluator"]),
                          **{**level["settings"], "seed": seed, **overrides})
    return MCTSPlayer.preset(name, seed=seed, **overrides)


def _level_with(spec: str, name: str, rest: str, seed: Optional[int]) -> Any:
    """``expert:time=1``: a level's player with some of its search's settings changed (its
    evaluator stays the level's).  A budget given (``time``, ``iterations``) replaces the
    level's budget whole: ``expert:time=1`` searches 1 s a move, not 1 s or its
    simulations, whichever ends first."""
    from .search.puct import PUCTSettings
    puct = LEVEL_SEARCH.get(name) == "puct"
    settings_type = PUCTSettings if puct else SearchSettings
    aliases = dict(SYNONYMS)
    if puct:
        aliases.update(sims="iterations", simulations="iterations")
    settings = _parse_settings(spec, rest,
                               [n for n in setting_names(settings_type) if n != "seed"],
                               lambda key, text: parse_setting(key, text, settings_type),
                               aliases)
    if "time_limit" in settings or "iterations" in settings:
        settings.setdefault("time_limit", None)
        settings.setdefault("iterations", None)
    return level_player(name, seed, **settings)


def make_player(spec: str, seed: Optional[int] = None) -> Any:
    """A player from a spec: a preset name, ``random``, ``mcts:key=value,...``,
    ``puct:key=value,...``, ``alphabeta:depth=N``, ``gtp:COMMAND`` or
    ``nboard:COMMAND``."""
    from .protocols import engine as eng
    kind, _, rest = spec.partition(":")
    if spec in PRESETS:
        return level_player(spec, seed)
    if kind in PRESETS and rest:
        return _level_with(spec, kind, rest, seed)
    if spec == "random":
        return RandomPlayer(seed)
    if kind == "mcts":
        settings = _parse_settings(spec, rest, setting_names(SearchSettings) + ["preset"], _parse_mcts,
                                   SYNONYMS)
        settings.setdefault("seed", seed)
        preset = settings.pop("preset", None)
        if preset is not None and preset not in PRESETS:
            raise SettingsError(f"unknown preset {shown(preset)} in {shown(spec)}")
        return MCTSPlayer.preset(preset, **settings) if preset else MCTSPlayer(**settings)
    if kind == "puct":
        return _puct_player(spec, rest, seed)
    if kind == "alphabeta":
        settings = _parse_settings(
            spec, rest, setting_names(AlphaBetaSettings),
            lambda key, text: parse_setting(key, text, AlphaBetaSettings),
            SYNONYMS)
        settings.setdefault("seed", seed)
        return AlphaBetaPlayer(**settings)
    if kind == "gtp" and rest:
        return eng.popen_gtp(rest)
    if kind == "nboard" and rest:
        return eng.popen_nboard(rest)
    raise SettingsError(f"unknown player {shown(spec)}: use a preset ({', '.join(PRESETS)}), "
                        "a preset with search settings (expert:time=1), random, "
                        "mcts:iterations=N,..., puct:time=S,..., alphabeta:depth=N, gtp:COMMAND or "
                        "nboard:COMMAND")
