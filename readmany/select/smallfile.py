"""A small file that steers the selection, read whole: an ignore file, git's configuration.

Never follows a link and never waits on a FIFO or device; a file over its limit is not
read at all. Used by the ignore files (`ignore`) and by git's configuration
(`gitconfig`), below both.
"""

from __future__ import annotations

import os
import stat

REASON_NOT_REGULAR = "not a regular file"
TOO_LARGE = "too large"  # `read_regular`'s answer for a file over its limit


def read_regular(path: str, limit: int) -> bytes | str | None:
    """The bytes of the regular file at `path` (at most `limit`), a reason it was not
    read, or None when it is absent or unreadable.

    Never follows a link and never waits on a FIFO or device: the type is checked
    before opening and again on the opened descriptor.
    """
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):
            return REASON_NOT_REGULAR
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return REASON_NOT_REGULAR
        if st.st_size > limit:
            return TOO_LARGE
        chunks = []
        size = 0
        want = st.st_size + 1  # one more byte tells a file that grew since
        while size <= limit:
            chunk = os.read(fd, min(want, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
            want = 64 * 1024
    except OSError:
        return None
    finally:
        os.close(fd)
    if size > limit:
        return TOO_LARGE
    return b"".join(chunks)
