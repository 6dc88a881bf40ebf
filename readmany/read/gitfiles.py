"""The files git names (`--staged`, `--changed REV`) as a selection, filtered by the
patterns: the staged ones read here, from the index (what the commit will hold); the
changed ones read by the caller, from the work tree, like the files of a walk. With
`--with-diff`, the diff's text too. Git lists (`select/git.py`); this reads.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence

from readmany.select.candidates import shown_path
from readmany.select.lookahead import Found, Selection

TYPE_CHECKING = False
if TYPE_CHECKING:
    from readmany.read.glob_file import CandidateReader


class FromGit(Selection):
    """The files git names under `root`: staged (`staged`), or changed since `changed`;
    those `patterns` keep, never the `-o` target (`output`). `reader` makes the read of
    a staged file (from its blob); `with_diff`: the diff's text is `diff`, its paths
    written by `header`."""

    def __init__(
        self,
        root: str,
        *,
        staged: bool,
        changed: str | None,
        patterns: Sequence[str],
        output: str | None,
        with_diff: bool,
        absolute: bool,
        reader: Callable[[], CandidateReader],
        header: Callable[[str], str],
    ) -> None:
        from readmany.read.gitcontent import diff_text
        from readmany.select import git

        self._absolute = absolute
        self._reader = reader
        root = os.path.abspath(root)
        if staged:
            selection = git.staged(root)
        else:
            assert changed is not None
            selection = git.changed(root, changed)
        keep = git.path_filter(patterns, selection.root, output)
        self._selection = selection.filtered(keep) if keep is not None else selection
        # The patterns that match none of git's paths: said as a pattern that matched
        # nothing (exit status 1), as a walk says it.
        self._unmatched = git.unmatched_patterns(patterns, selection)
        if with_diff:
            # An empty diff is no section: nothing staged is then said as without the
            # diff (`nothing is staged`), not shown as an empty section.
            self.diff = (
                diff_text(
                    selection.root,
                    staged=staged,
                    rev=changed,
                    paths=self._selection.diff_paths(),
                    header=header,
                )
                or None
            )

    @property
    def root(self) -> str:
        return self._selection.root

    def __iter__(self) -> Iterator[Found]:
        from readmany.select.candidates import REASON_NO_MATCH, Skip

        yield from self._items()
        for pattern in self._unmatched:
            yield Skip(pattern, REASON_NO_MATCH, failed=True), None

    def _items(self) -> Iterator[Found]:
        from readmany.select.candidates import Candidate

        if not self._selection.from_index:
            for event in self._selection.events():
                yield event, None
            return
        from readmany.read.gitcontent import index_blobs

        reader = self._reader()
        with index_blobs(self._selection) as batch:
            blobs = iter(batch)  # one a candidate, in the same order
            for event in self._selection.events():
                if not isinstance(event, Candidate):
                    yield event, None
                    continue
                blob = next(blobs)
                shown = shown_path(self.root, event.rel, self._absolute)
                yield event, reader.blob(event.rel, shown, blob)
