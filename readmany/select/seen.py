"""The paths a stream has given already, held in a few bytes each, exactly.

A `set` of path strings costs about 135 bytes a path (the string object and its share
of the table): 13 MiB for the 100,000 paths of a `git ls-files` list. Here a path costs
a slot of 4 bytes (the table is at most two thirds full), 32 bits of its hash and where
it ends in a log (4 bytes each, 8 once the log passes 4 GiB); the log holds the paths'
bytes, in memory up to `_SPILL` bytes and then in an anonymous temporary file, read back
only when two hashes agree. The answer is exact (two paths are the same only when their
bytes are), and a path costs about 20 bytes, for about 1 µs.
"""

from __future__ import annotations

import os
from array import array

_SPILL = 1 << 16  # log bytes kept in memory before they go to a temporary file
_FIRST_SIZE = 1 << 10  # slots of a new table (a power of two)
_HASH_BITS = 0xFFFF_FFFF  # of a path's hash, the bits kept (and the most slots a table has)
_NARROW_END = 0xFFFF_FFFF  # the largest log offset held in 4 bytes


class SeenPaths:
    """A set of paths that can only grow: `add(path)` says whether the path is new."""

    def __init__(self) -> None:
        self._slots = array("I", bytes(4 * _FIRST_SIZE))  # entry number + 1; 0: empty
        self._mask = _FIRST_SIZE - 1
        self._hashes = array("I")  # each entry's hash, its low 32 bits
        self._ends = array("I", [0])  # where each entry ends in the log (and the first begins)
        self._tail = bytearray()  # the end of the log, not in the file
        self._spilled = 0  # bytes of the log in the file
        self._file: int | None = None  # the temporary file's descriptor
        self._in_memory = not hasattr(os, "pread")  # never spilled

    def __len__(self) -> int:
        return len(self._hashes)

    def __contains__(self, path: str) -> bool:
        key = hash(path) & _HASH_BITS
        slots, hashes, mask = self._slots, self._hashes, self._mask
        slot = key & mask
        while entry := slots[slot]:
            if hashes[entry - 1] == key and self._entry(entry - 1) == _encode(path):
                return True
            slot = (slot + 1) & mask
        return False

    def add(self, path: str) -> bool:
        """Add `path`; True if it was not there yet."""
        key = hash(path) & _HASH_BITS
        data = _encode(path)
        slots, hashes, mask = self._slots, self._hashes, self._mask
        slot = key & mask
        while entry := slots[slot]:
            if hashes[entry - 1] == key and self._entry(entry - 1) == data:
                return False
            slot = (slot + 1) & mask
        hashes.append(key)
        tail = self._tail
        tail += data
        end = self._spilled + len(tail)
        if end > _NARROW_END and self._ends.typecode == "I":  # a log past 4 GiB
            self._ends = array("Q", self._ends)
        self._ends.append(end)
        count = len(hashes)
        slots[slot] = count
        if count * 3 > mask * 2:
            self._grow()
        elif len(tail) > _SPILL:
            self._spill()
        return True

    def _entry(self, number: int) -> bytes:
        """The bytes of entry `number`, from the log."""
        start, end = self._ends[number], self._ends[number + 1]
        if start >= self._spilled:
            return bytes(self._tail[start - self._spilled : end - self._spilled])
        assert self._file is not None
        return os.pread(self._file, end - start, start)

    def _grow(self) -> None:
        size = 2 * (self._mask + 1)
        mask = size - 1
        slots = array("I", bytes(4 * size))
        for number, key in enumerate(self._hashes, 1):
            slot = key & mask
            while slots[slot]:
                slot = (slot + 1) & mask
            slots[slot] = number
        self._slots, self._mask = slots, mask

    def _spill(self) -> None:
        if self._in_memory:
            return
        try:
            if self._file is None:
                from readmany.scratch import anonymous_file

                self._file = anonymous_file()
            written = 0
            while written < len(self._tail):
                written += os.write(self._file, self._tail[written : written + _SPILL])
        except OSError:
            # No room for a temporary file: the log stays in memory (as on Windows,
            # which cannot read a file at an offset without moving its position).
            self._in_memory = True
            if self._file is not None and self._spilled == 0:
                self.close()
            return
        self._spilled += len(self._tail)
        self._tail = bytearray()

    def close(self) -> None:
        """Release the temporary file, if there is one."""
        if self._file is not None:
            os.close(self._file)
            self._file = None


def _encode(path: str) -> bytes:
    # One string, one byte sequence, and back: lone surrogates (undecodable names) too.
    return path.encode("utf-8", "surrogatepass")
