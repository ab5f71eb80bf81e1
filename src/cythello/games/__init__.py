"""Games databases: WTHOR, GGF and transcript collections read into one table, filtered by
player, tournament, year and opening, and a position's statistics across them (the moves
played there and how they turned out, up to the board's symmetries)."""
from .database import GameDatabase, cache_folder, default_index_path
from .index import GamesIndexError, PositionIndex
from .stats import MoveStat, PositionStats

__all__ = ["GameDatabase", "PositionStats", "MoveStat", "PositionIndex", "GamesIndexError",
           "cache_folder", "default_index_path"]
