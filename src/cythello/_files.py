"""Reading files so that no file can hang the reader, exhaust its memory or end in a
traceback: cythello's own binary files (evaluation weights, opening books), arrays
(self-play shards), and text (records, openings, manifests).  Regular files only, read in
steps up to a size limit, decompressed in steps to a known size at most.  Each check raises
the caller's error type (a ``ValueError`` subclass, or ``OSError`` for shards) naming the
file.  Every reader of a file a user can name goes through here."""
from __future__ import annotations

import io
import json
import os
import stat
import struct
import zipfile
import zlib
from typing import Any, Callable, Dict, Optional, Tuple, Type, Union

import numpy as np

_PathLike = Union[str, "os.PathLike[str]"]

READ_STEP = 1 << 20         # bytes read (or inflated) at a time
# Deflate's best ratio is about 1032:1, so a payload that claims more than this many bytes
# out for each byte in cannot be a real one (and is refused before inflating anything).
MAX_INFLATE_RATIO = 1032


def read_regular_file(path: _PathLike, limit: int, where: str,
                      error: Type[Exception]) -> bytes:
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
        # In steps: one read of ``limit`` bytes would reserve that much memory up front,
        # which an address-space limit (a container, ``ulimit -v``) refuses even for a
        # small file.  Memory grows with what the file really holds.
        parts = []
        got = 0
        with open(fd, "rb", buffering=0, closefd=False) as f:
            while got <= limit:
                part = f.read(min(READ_STEP, limit + 1 - got))
                if not part:
                    break
                parts.append(part)
                got += len(part)
    except OSError as exc:
        raise error(f"cannot read {where}: {exc.strerror or exc}") from None
    finally:
        os.close(fd)
    if got > limit:                             # grew while being read
        raise error(f"{where} is more than the {limit:,} bytes it can be")
    return b"".join(parts)


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


def inflate(payload: bytes, size: int, where: str, error: Type[ValueError],
            check: Optional[Callable[[bytes, int], None]] = None, step: int = READ_STEP
            ) -> bytes:
    """``payload`` decompressed, which must give exactly ``size`` bytes.  A claimed size that
    no deflate stream of the payload's length can reach is refused at once; otherwise the
    data is inflated ``step`` bytes at a time (never past ``size``), and ``check(part,
    offset)``, when given, judges each part as it comes: a corrupt or hostile file is
    refused after its first bad part, at the memory cost of one part, not of its claim."""
    if size > MAX_INFLATE_RATIO * len(payload) + 64:
        raise error(f"{where} is corrupt (it claims {size:,} bytes from {len(payload):,} "
                    "compressed, more than deflate can give)")
    parts = []
    got = 0
    try:
        inflater = zlib.decompressobj()
        data = payload
        while not inflater.eof:
            part = inflater.decompress(data, min(step, size + 1 - got))
            data = inflater.unconsumed_tail
            if not part and not data:           # truncated: nothing more will come
                break
            if got + len(part) > size:          # more than claimed
                got += len(part)
                break
            if part and check is not None:
                check(part, got)
            parts.append(part)
            got += len(part)
    except zlib.error as exc:
        raise error(f"{where} is corrupt ({exc})") from None
    if got != size or not inflater.eof:
        raise error(f"{where} is corrupt (its data is not the {size:,} bytes its header "
                    "says)")
    return b"".join(parts)


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


# The .npy header readers by format version (numpy writes 1.0, or 2.0 for huge headers).
_NPY_HEADERS = {(1, 0): np.lib.format.read_array_header_1_0,
                (2, 0): np.lib.format.read_array_header_2_0}
MAX_ARRAYS = 1 << 30        # bytes of a .npz file of arrays (self-play shards, caches)


def read_npz(path: _PathLike, what: str, error: Type[Exception],
             limit: int = MAX_ARRAYS) -> Dict[str, Any]:
    """The arrays of a ``.npz`` file as a dict, read as :func:`read_regular_file` does (no
    pickles): each member's header is checked against the bytes it holds before its array
    is made, so that a member claiming a huge shape costs nothing before it is refused."""
    where = f"{what} {os.fspath(path)}"
    data = read_regular_file(path, limit, where, error)
    arrays: Dict[str, Any] = {}
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            members = zf.infolist()
            if sum(m.file_size for m in members) > limit:
                raise error(f"{where} claims more than the {limit:,} bytes it can hold")
            for member in members:
                name = member.filename
                if not name.endswith(".npy"):
                    raise error(f"{where} is not a file of arrays (member {name!r})")
                with zf.open(member) as fh:
                    version = np.lib.format.read_magic(fh)
                    if version not in _NPY_HEADERS:
                        raise error(f"{where}: member {name!r} has .npy format {version}, "
                                    "which is not read")
                    shape, fortran, dtype = _NPY_HEADERS[version](fh)
                    if dtype.hasobject:
                        raise error(f"{where} holds Python objects, which are not read")
                    need = int(np.prod(shape, dtype=object)) * dtype.itemsize
                    if need != member.file_size - fh.tell():
                        raise error(f"{where} is corrupt (member {name!r} claims {need:,} "
                                    "bytes of data it does not hold)")
                    raw = fh.read()
                array = np.frombuffer(raw, dtype=dtype)
                array = array.reshape(shape, order="F" if fortran else "C")
                arrays[name[:-4]] = array.copy()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, EOFError, OSError,
            NotImplementedError, RuntimeError) as exc:
        if isinstance(exc, error):
            raise
        raise error(f"{where} is corrupt ({type(exc).__name__}: {exc})") from None
    return arrays


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
