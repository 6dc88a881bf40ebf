"""`readmany glob`: select by globs and ignore rules, read, frame with `--- path ---`."""

from __future__ import annotations

from dataclasses import dataclass

from readmany.commands import Outcome
from readmany.emit import Sink


@dataclass(frozen=True)
class GlobRequest:
    """The flags of `readmany glob`, as the CLI parsed them."""

    patterns: tuple[str, ...]  # positional patterns, then --include, then --stdin paths
    excludes: tuple[str, ...] = ()
    use_default_excludes: bool = True
    use_gitignore: bool = True
    ignore_files: tuple[str, ...] = ()  # extra ignore-file names; .readmanyignore is implied
    recursive: bool = True
    root: str = "."
    absolute: bool = False
    literal_paths: tuple[str, ...] = ()  # from --stdin: exact paths, never globs


def run_glob(request: GlobRequest, sink: Sink) -> Outcome:
    raise NotImplementedError("glob is being built")
