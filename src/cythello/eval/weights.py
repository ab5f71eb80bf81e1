"""Evaluation weights files: writing, checking and loading them.

A weights file holds the packed int16 weights of every stage (see
:mod:`cythello.eval.patterns`) and a JSON header with the feature layout's digest and the
provenance of the weights (how they were trained, from what, with which seed):

    magic "CYTHEVAL" | u32 format version | u32 header length | header (JSON, UTF-8)
    | u32 payload length | payload (zlib of int16 little-endian, stages x packed weights)
    | u32 CRC-32 of everything before it

A file that is missing, truncated, corrupt or made for another feature layout raises
:class:`~cythello.errors.WeightsError` naming what is wrong; a file of cythello 0.2.0's
layout (no mobility) loads with zero mobility weights.
"""
from __future__ import annotations

import json
import os
import struct
import zlib
from functools import lru_cache
from pathlib import Path
from typing import Any, Dict, Optional, Union

import numpy as np

from .._files import inflate, read_checked, write_atomic
from ..errors import WeightsError
from . import patterns
from ._patterns import PatternWeights

MAGIC = b"CYTHEVAL"
FORMAT_VERSION = 1
MAX_FILE = 64 << 20                   # bytes: far above any weights file (1.8 MB shipped)
DEFAULT_PATH = Path(__file__).with_name("default.weights")

_PathLike = Union[str, "Path"]


def unpack(packed: np.ndarray) -> np.ndarray:
    """Packed weights (stages x :func:`patterns.packed_size`) to the evaluator's table
    (stages x TABLE_SIZE): every configuration gets its packed slot's weight."""
    return packed[:, unpack_map()].astype(np.int16)


@lru_cache(maxsize=1)
def unpack_map() -> np.ndarray:
    """For each unpacked table index, its packed weight slot (the same for every stage)."""
    offsets = patterns.packed_offsets()
    parts = [lay.pack + off for lay, off in zip(patterns.layouts(), offsets)]
    parts.append(offsets[-1] + np.arange(patterns.PARITY_WEIGHTS + 2 * patterns.MOBILITY_SLOTS))
    return np.concatenate(parts).astype(np.int64)


def save_weights(path: _PathLike, packed: np.ndarray, provenance: Dict[str, Any]) -> None:
    """Write packed weights (int16, stages x packed size) with their provenance."""
    packed = np.asarray(packed)
    expected = (patterns.N_STAGES, patterns.packed_size())
    if packed.shape != expected:
        raise WeightsError(f"packed weights must have shape {expected}, not {packed.shape}")
    header = json.dumps({
        "layout": patterns.layout_id(), "stages": patterns.N_STAGES,
        "packed_size": patterns.packed_size(), "scale": patterns.SCALE,
        "provenance": provenance,
    }, sort_keys=True).encode()
    payload = zlib.compress(packed.astype("<i2").tobytes(), 9)
    body = (MAGIC + struct.pack("<II", FORMAT_VERSION, len(header)) + header
            + struct.pack("<I", len(payload)) + payload)
    write_atomic(path, body + struct.pack("<I", zlib.crc32(body)), "evaluation weights",
                 WeightsError)


def read_weights(path: _PathLike) -> "tuple[np.ndarray, Dict[str, Any]]":
    """The packed weights and the header of a weights file, checked: a regular file of at
    most MAX_FILE bytes, decompressed to its known size at most, with a JSON object for a
    header (see the module's docstring)."""
    where = f"evaluation weights {os.fspath(path)}"
    header, body = read_checked(path, MAGIC, FORMAT_VERSION, MAX_FILE, "evaluation weights",
                                WeightsError)
    if not isinstance(header.get("provenance", {}), dict):
        raise WeightsError(f"{where} is corrupt (its provenance is not a JSON object)")
    size = {patterns.layout_id(): patterns.packed_size(),
            patterns.LAYOUT_0_2: patterns.PACKED_SIZE_0_2}.get(str(header.get("layout")))
    if size is None:
        raise WeightsError(f"{where} was made for feature layout {header.get('layout')!r}, "
                           f"not this cythello's {patterns.layout_id()!r}")
    if len(body) < 4:
        raise WeightsError(f"{where} is corrupt (no weights)")
    (plen,) = struct.unpack("<I", body[:4])
    raw = inflate(body[4:4 + plen], patterns.N_STAGES * size * 2, where, WeightsError)
    packed = np.frombuffer(raw, dtype="<i2").reshape(patterns.N_STAGES, size)
    if size != patterns.packed_size():
        # A 0.2.0 file: its weights are the patterns' and parity's, in the same order;
        # zero mobility weights keep its evaluation exactly.
        packed = np.concatenate([packed, np.zeros((patterns.N_STAGES, patterns.packed_size()
                                                   - size), np.int16)], axis=1)
    return packed.astype(np.int16), header


def load_weights(path: Optional[_PathLike] = None) -> PatternWeights:
    """The weights of a file (default: the ones cythello ships), ready for the evaluator."""
    if path is None:
        return default_weights()
    packed, header = read_weights(path)
    info = dict(header.get("provenance", {}))
    info["file"] = os.fspath(path)
    return PatternWeights(unpack(packed), info)


@lru_cache(maxsize=1)
def default_weights() -> PatternWeights:
    """The shipped weights, loaded once."""
    packed, header = read_weights(DEFAULT_PATH)
    info = dict(header.get("provenance", {}))
    info["file"] = DEFAULT_PATH.name
    return PatternWeights(unpack(packed), info)


def check_weights_setting(name: str, value: object) -> object:
    """An evaluation-weights setting as given: 'default', a weights file or
    :class:`~cythello.eval.PatternWeights` (None is for the caller to allow)."""
    if isinstance(value, (str, os.PathLike, PatternWeights)):
        return value
    raise TypeError(f"{name} must be None, 'default', a weights file or PatternWeights, "
                    f"not {type(value).__name__}")


def load_eval_weights(value: Any) -> Any:
    """An ``eval_weights`` setting as weights: None, ``"default"`` (loaded once per
    process), a weights file, or :class:`~cythello.eval.PatternWeights` as they are."""
    value = check_weights_setting("eval_weights", value) if value is not None else None
    if value is None or isinstance(value, PatternWeights):
        return value
    if value == "default":
        return default_weights()
    return load_weights(os.fspath(value))
