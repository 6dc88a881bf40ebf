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
