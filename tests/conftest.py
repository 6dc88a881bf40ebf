"""Fixtures shared by the test modules."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import helpers
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


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """A test marked `smoke` runs the installed command (its fixtures too); the others
    run it in-process."""
    helpers.installed_only(item.get_closest_marker("smoke") is not None)


@pytest.hookimpl(trylast=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> None:
    helpers.installed_only(False)
