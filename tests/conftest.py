"""Fixtures shared by the test modules."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

# Timings belong in the benchmark: a slow machine must not fail a property test.
settings.register_profile("readmany", deadline=None)
settings.load_profile("readmany")


@pytest.fixture
def shared_dir() -> Iterator[Path]:
    """A directory another user can enter: pytest's own tmp_path is private to us."""
    with tempfile.TemporaryDirectory(prefix="readmany-shared-") as name:
        os.chmod(name, 0o755)
        yield Path(name)


@pytest.fixture(autouse=True, scope="session")
def _private_pattern_cache() -> Iterator[None]:
    """Runs under test keep their pattern cache in a directory of their own, not in ~."""
    with tempfile.TemporaryDirectory(prefix="readmany-cache-") as name:
        previous = os.environ.get("READMANY_CACHE_DIR")
        os.environ["READMANY_CACHE_DIR"] = name
        yield
        if previous is None:
            del os.environ["READMANY_CACHE_DIR"]
        else:
            os.environ["READMANY_CACHE_DIR"] = previous
