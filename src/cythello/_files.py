"""Reading files so that no file can hang the reader, exhaust its memory or end in a
traceback: cythello's own binary files (evaluation weights, opening books), arrays
(self-play shards), and text (records, openings, manifests).  Regular files only, read in
steps up to a size limit, decompressed in steps to a known size at most.  Each check raises
the caller's error type (a ``ValueError`` subclass, or ``OSError`` for shards) naming the
file.  Every reader of a file a user can name goes through here."""
from __future__ import annotations

import errno
import io
import json
import os
import stat
import struct
import tempfile
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
    except MemoryError:
        raise error(f"{where} is more than this machine's memory can hold") from None
    finally:
        os.close(fd)
    if got > limit:                             # grew while being read
        raise error(f"{where} is more than the {limit:,} bytes it can be")
    try:
        return b"".join(parts)
    except MemoryError:
        raise error(f"{where} is more than this machine's memory can hold") from None


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
# cythello's own array files never inflate to more than this many times their size
# (shards' bitboards deflate about 2:1, caches are stored): a file claiming more is not
# one of them, and is refused before anything is inflated.
MAX_ARRAYS_RATIO = 64


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
            claimed = sum(m.file_size for m in members)
            if claimed > limit:
                raise error(f"{where} claims more than the {limit:,} bytes it can hold")
            if claimed > MAX_ARRAYS_RATIO * max(len(data), 1 << 16):
                raise error(f"{where} is not a file of cythello's arrays: its "
                            f"{len(data):,} bytes claim {claimed:,} bytes of arrays")
            for member in members:
                # A member that claims more than deflate can give for its bytes is not
                # a real one: refused before anything is inflated.
                if member.file_size > MAX_INFLATE_RATIO * max(1, member.compress_size):
                    raise error(f"{where} is corrupt (member {member.filename!r} claims "
                                f"{member.file_size:,} bytes from {member.compress_size:,})")
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
    except MemoryError:
        raise error(f"{where} holds more than this machine's memory can load") from None
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, EOFError, OSError,
            NotImplementedError, RuntimeError) as exc:
        if isinstance(exc, error):
            raise
        raise error(f"{where} is corrupt ({type(exc).__name__}: {exc})") from None
    return arrays


# A fixed time for every member of the .npz files written: the same arrays, the same bytes.
_FIXED_TIME = (1980, 1, 1, 0, 0, 0)


def write_npz(path: _PathLike, arrays: Dict[str, Any], what: str, error: Type[Exception],
              compress: bool = False) -> None:
    """Arrays as a ``.npz`` file (no pickles; deflated with ``compress``), written as
    :func:`write_atomic` writes: whole or not at all, so that a full disk or a kill leaves
    no half-written file for a later run to trip on."""
    buf = io.BytesIO()
    kind = zipfile.ZIP_DEFLATED if compress else zipfile.ZIP_STORED
    with zipfile.ZipFile(buf, "w", compression=kind) as zf:
        for name, array in arrays.items():
            member = io.BytesIO()
            np.lib.format.write_array(member, np.ascontiguousarray(array), allow_pickle=False)
            info = zipfile.ZipInfo(name + ".npy", date_time=_FIXED_TIME)
            info.compress_type = kind
            info.external_attr = 0o644 << 16
            zf.writestr(info, member.getvalue())
    write_atomic(path, buf.getvalue(), what, error)


def _write_through(path: _PathLike, data: bytes, where: str, error: Type[Exception]) -> None:
    """Write ``data`` into a device or FIFO as ``tee`` would, never waiting for a reader
    that is not there (a FIFO nobody reads is refused at once)."""
    try:
        fd = os.open(path, os.O_WRONLY | getattr(os, "O_NONBLOCK", 0)
                     | getattr(os, "O_BINARY", 0))
    except OSError as exc:
        if exc.errno == errno.ENXIO:
            raise error(f"cannot write {where}: nothing is reading it") from None
        raise error(f"cannot write {where}: {exc.strerror or exc}") from None
    try:
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)       # a reader is there: go at its pace
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view[:READ_STEP]):]
    except OSError as exc:
        raise error(f"cannot write {where}: {exc.strerror or exc}") from None
    finally:
        os.close(fd)


def _existing_kind(path: _PathLike) -> str:
    """What is at ``path`` (symbolic links followed): ``"missing"``, ``"file"``,
    ``"folder"``, ``"stream"`` (a character or block device or a FIFO, written through)
    or ``"other"`` (a socket: neither replaced nor written)."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return "missing"
    except OSError:
        return "missing"                    # a broken link, no permission: the write says
    if stat.S_ISREG(mode):
        return "file"
    if stat.S_ISDIR(mode):
        return "folder"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) or stat.S_ISFIFO(mode):
        return "stream"
    return "other"


def is_stream(path: _PathLike) -> bool:
    """Whether ``path`` is a device or a FIFO (an output written through, not replaced)."""
    return _existing_kind(path) == "stream"


def check_writable(path: _PathLike, what: str, error: Type[Exception]) -> None:
    """Refuse now, before a long computation, an output that cannot be written (a missing
    folder, a folder of that name, a socket, no permission); nothing is left behind, and a
    device or FIFO is not opened (it will be written through)."""
    where = f"{what} {os.fspath(path)}"
    kind = _existing_kind(path)
    if kind == "folder":
        raise error(f"cannot write {where}: it is a folder")
    if kind == "other":
        raise error(f"cannot write {where}: it is not a file, a device or a FIFO")
    if kind == "stream":
        return
    existed = os.path.lexists(path)
    try:
        with open(path, "ab"):
            pass
    except OSError as exc:
        raise error(f"cannot write {where}: {exc.strerror or exc}") from None
    if not existed:
        os.unlink(path)


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


# Read once, at import (os.umask can only be read by setting it, which is not thread-safe).
_UMASK = _umask()


def _mode_for(target: str) -> int:
    """The permission bits a replaced file keeps, or a new one gets (0666 less the umask)."""
    try:
        return stat.S_IMODE(os.stat(target).st_mode)
    except OSError:
        return 0o666 & ~_UMASK


def write_atomic(path: _PathLike, data: bytes, what: str, error: Type[Exception]) -> None:
    """Write ``data`` to ``path`` so that the file is whole or absent, even after a crash or
    a full disk: a temporary file beside it, flushed to disk, then renamed into place (the
    temporary file is removed when anything fails).  Only a regular file (or a missing
    one) is replaced, through a symbolic link to it the file it names; a device or a FIFO
    is written through instead (``/dev/null``, ``/dev/stdout``, a pipe), and a folder or a
    socket refused, so that no output path can turn a device into a file."""
    where = f"{what} {os.fspath(path)}"
    kind = _existing_kind(path)
    if kind == "stream":
        _write_through(path, data, where, error)
        return
    if kind in ("folder", "other"):
        check_writable(path, what, error)               # says why, in the caller's words
    target = os.path.realpath(path) if os.path.islink(path) else os.fspath(path)
    folder, name = os.path.split(target)
    try:
        # A fresh name of our own (O_EXCL, never a link's target): a file, link or FIFO
        # someone left at a fixed name cannot be written through, and two writers of one
        # path never share a temporary file.
        fd, tmp = tempfile.mkstemp(dir=folder or ".", prefix=f".{name}.", suffix=".part")
    except OSError as exc:
        raise error(f"cannot write {where}: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            if hasattr(os, "fchmod"):       # mkstemp's 0600: the mode open() would give
                os.fchmod(fh.fileno(), _mode_for(target))
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except OSError as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise error(f"cannot write {where}: {exc.strerror or exc}") from None
