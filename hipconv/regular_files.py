"""Small files that hipconv reads for itself (a .gitignore, the output marker) only when they are regular
files: a symbolic link is not followed (it could lead out of the tree, to /dev/zero), a FIFO or a device is
never waited on (the open does not block), and no more than a bound is read (what is cut is said).

A leaf module (no hipconv imports), so that discover and excludes can use it at start-up.
"""

from __future__ import annotations

import errno
import os
import stat
from typing import NamedTuple

SPECIAL_KINDS = {
    stat.S_IFIFO: "a FIFO",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFSOCK: "a socket",
    stat.S_IFLNK: "a symbolic link",
    stat.S_IFDIR: "a directory",
}


def file_type(mode: int) -> str:
    """What a file of this st_mode is, in words ("a FIFO"); "a regular file" for one."""
    return "a regular file" if stat.S_ISREG(mode) else SPECIAL_KINDS.get(stat.S_IFMT(mode), "not a regular file")


class NotRegular(OSError):
    """The path is not a regular file (a link, a FIFO, a device, a directory): it was not read."""


class Read(NamedTuple):
    data: bytes  # at most `limit` bytes
    size: int  # the file's whole size
    cut: bool  # the file held more than `limit` bytes; data has the first `limit`


def read_regular(path: str | os.PathLike[str], *, limit: int) -> Read:
    """The first `limit` bytes of the regular file at `path`. NotRegular when it is a symbolic link or not a
    regular file (nothing read, no wait); other OSErrors as open and read raise them (FileNotFoundError)."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if exc.errno == errno.ELOOP:  # O_NOFOLLOW met a link
            raise NotRegular(errno.ELOOP, "a symbolic link: not followed", os.fspath(path)) from None
        raise
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise NotRegular(errno.EINVAL, f"{file_type(info.st_mode)}, not a regular file: not read", os.fspath(path))
        chunks: list[bytes] = []
        got = 0
        while got <= limit:
            chunk = os.read(fd, limit + 1 - got)
            if not chunk:
                break
            chunks.append(chunk)
            got += len(chunk)
    finally:
        os.close(fd)
    data = b"".join(chunks)
    return Read(data[:limit], max(info.st_size, len(data)), len(data) > limit)
