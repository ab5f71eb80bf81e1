"""Reading cythello's own binary files (evaluation weights, opening books) so that no file
can hang the reader, exhaust its memory or end in a traceback: regular files only, read
with a size limit, decompressed to a known size at most.  Each check raises the caller's
error type (a ``ValueError`` subclass) naming the file."""
from __future__ import annotations

import json
import os
import stat
import struct
import zlib
from typing import Any, Dict, Tuple, Type, Union

_PathLike = Union[str, "os.PathLike[str]"]


def read_regular_file(path: _PathLike, limit: int, where: str,
                      error: Type[ValueError]) -> bytes:
    """The bytes of ``path`` if it is a regular file of at most ``limit`` bytes.  Opened
    without blocking, so that a FIFO is refused instead of waiting for a writer; a device
    such as /dev/zero is refused as not a regular file."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)
                     | getattr(os, "O_BINARY", 0))
    except OSError as exc:
        raise error(f"cannot read {where}: {exc.strerror or exc}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise error(f"{where} is not a regular file")
        if info.st_size > limit:
            raise error(f"{where} is {info.st_size:,} bytes, more than the {limit:,} it "
                        "can be")
        with open(fd, "rb", closefd=False) as f:
            data = f.read(limit + 1)
    except OSError as exc:
        raise error(f"cannot read {where}: {exc.strerror or exc}") from None
    finally:
        os.close(fd)
    if len(data) > limit:                       # grew while being read
        raise error(f"{where} is more than the {limit:,} bytes it can be")
    return data


MAX_HEADER = 1 << 16        # bytes of JSON header a reader accepts


def read_checked(path: _PathLike, magic: bytes, version: int, limit: int, what: str,
                 error: Type[ValueError]) -> Tuple[Dict[str, Any], bytes]:
    """The header and body of one of cythello's binary files (weights, books):

        magic | u32 format version | u32 header length | header (a JSON object, UTF-8)
        | body | u32 CRC-32 of everything before it

    read as :func:`read_regular_file` does and checked (magic, checksum, version, header
    length and type); any problem is an ``error`` naming the file (``what`` and path)."""
    where = f"{what} {os.fspath(path)}"
    data = read_regular_file(path, limit, where, error)
    start = len(magic) + 8
    if len(data) < start + 4 or data[:len(magic)] != magic:
        raise error(f"{where} is not a cythello {what} file (bad magic)")
    (crc,) = struct.unpack("<I", data[-4:])
    if zlib.crc32(data[:-4]) != crc:
        raise error(f"{where} is corrupt (checksum mismatch)")
    found, hlen = struct.unpack("<II", data[len(magic):start])
    if found != version:
        raise error(f"{where} has format version {found}; this cythello reads {version}")
    if hlen > MAX_HEADER or start + hlen > len(data) - 4:
        raise error(f"{where} is corrupt (header length {hlen})")
    try:
        header = json.loads(data[start:start + hlen].decode())
    except (ValueError, RecursionError) as exc:
        raise error(f"{where} is corrupt (header: {exc})") from None
    if not isinstance(header, dict):
        raise error(f"{where} is corrupt (its header is not a JSON object)")
    return header, data[start + hlen:-4]


def inflate(payload: bytes, size: int, where: str, error: Type[ValueError]) -> bytes:
    """``payload`` decompressed, which must give exactly ``size`` bytes: decompression
    stops one byte past ``size``, so a zlib bomb costs no more memory than a good file."""
    try:
        inflater = zlib.decompressobj()
        raw = inflater.decompress(payload, size + 1)
    except zlib.error as exc:
        raise error(f"{where} is corrupt ({exc})") from None
    if len(raw) != size or not inflater.eof:
        raise error(f"{where} is corrupt (its data is not the {size:,} bytes its header "
                    "says)")
    return raw


MAX_TEXT = 1 << 28          # bytes of a record file (OBF, GGF, transcripts): 256 MB


def read_text(path: _PathLike, what: str, error: Type[ValueError],
              limit: int = MAX_TEXT) -> str:
    """A UTF-8 text file (a byte-order mark is dropped), as a regular file of at most
    ``limit`` bytes; text in another encoding is an ``error`` naming the file and the
    first byte that is not UTF-8."""
    where = f"{what} {os.fspath(path)}"
    data = read_regular_file(path, limit, where, error)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise error(f"{where} is not UTF-8 text (byte {exc.start}: "
                    f"{data[exc.start:exc.start + 1]!r}); save it as UTF-8") from None


def write_atomic(path: _PathLike, data: bytes, what: str, error: Type[Exception]) -> None:
    """Write ``data`` to ``path`` so that the file is whole or absent, even after a crash or
    a full disk: a temporary file beside it, flushed to disk, then renamed into place (the
    temporary file is removed when anything fails)."""
    tmp = os.fspath(path) + ".part"
    try:
        with open(tmp, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except OSError as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise error(f"cannot write {what} {os.fspath(path)}: {exc.strerror or exc}") from None
