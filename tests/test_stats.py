"""`--stats` material: measures of raw bytes, the summed tree, its text and JSON forms."""

from __future__ import annotations

import json

import pytest
from helpers import scaled
from hypothesis import given, settings
from hypothesis import strategies as st

from readmany.emit.stats import (
    StatsEntry,
    StatsTree,
    build_stats,
    mark,
    stats_json,
    stats_text,
)
from readmany.frame.paths import header_path
from readmany.read.measure import (
    STATS_SAMPLE_BYTES,
    Measure,
    measure,
    measure_chunks,
    measure_for_stats,
)
from readmany.tokens import estimate_tokens_for

ENTRIES = [
    StatsEntry("README.md", 19000, 300, 5000),
    StatsEntry("src/app.py", 3000, 100, 800),
    StatsEntry("src/util/text.py", 12000, 400, 3000),
    StatsEntry("tests/test_app.py", 500, 20, 150),
    StatsEntry("big.lock", 400000, 9000, 120000),
]


def test_measure_counts_bytes_and_lines_exactly() -> None:
    assert measure(b"") == Measure(0, 0, 0)
    assert measure(b"a\nb\n") == Measure(4, 2, estimate_tokens_for(b"a\nb\n"))
    assert measure(b"a\nb") == Measure(3, 2, estimate_tokens_for(b"a\nb"))
    assert measure(b"\n\n").lines == 2
    assert measure(b"a\r\nb\xff").lines == 2  # no decoding: CRLF and bad bytes as stored


@pytest.mark.slow
@settings(max_examples=scaled(200), deadline=None)
@given(
    data=st.one_of(
        st.binary(max_size=200),
        st.builds(
            lambda unit, times: unit * times,
            st.binary(min_size=1, max_size=40),
            st.integers(1, 900),
        ),
    ),
    chunk_size=st.integers(1, 5000),
)
def test_measuring_chunks_equals_measuring_the_whole(data: bytes, chunk_size: int) -> None:
    chunks = [data[i : i + chunk_size] for i in range(0, len(data), chunk_size)]
    assert measure_chunks(iter(chunks), len(data)) == measure(data)


def test_measuring_a_file_that_shrank_counts_what_was_read() -> None:
    data = b"line\n" * 5000
    shrunk = measure_chunks(iter([data[:1000]]), len(data))
    assert (shrunk.bytes, shrunk.lines) == (1000, 200)
    assert shrunk.tokens > 0


def test_measuring_for_stats_a_file_that_shrank_counts_what_was_read() -> None:
    data = bytes(range(32, 127)) * 100 + b"\n"
    for chunks in ([data[:1000]], [data[:8000], data[8000:9000]], [data[:100]] * 3):
        read = b"".join(chunks)
        expected = measure_chunks(iter(chunks), len(data), STATS_SAMPLE_BYTES)
        assert measure_for_stats(iter(chunks), len(data)) == expected
        assert (expected.bytes, expected.lines) == (len(read), 1)


def test_directories_sum_their_files_and_list_the_biggest_first() -> None:
    root = build_stats(ENTRIES).tree()
    assert (root.name, root.path, root.files) == (".", "", 5)
    assert (root.bytes, root.lines, root.tokens) == (434500, 9820, 128950)
    assert [child.name for child in root.children] == ["big.lock", "README.md", "src", "tests"]
    src = root.children[2]
    assert (src.path, src.is_directory, src.tokens, src.files) == ("src", True, 3800, 2)
    assert [child.name for child in src.children] == ["util", "app.py"]
    assert src.children[0].children[0].path == "src/util/text.py"


def test_ties_keep_the_given_order() -> None:
    entries = [StatsEntry(name, 10, 1, 3) for name in ("b", "a", "c")]
    assert [child.name for child in build_stats(entries).tree().children] == ["b", "a", "c"]


def test_budget_marks() -> None:
    root = build_stats(
        ENTRIES, omitted={"big.lock", "tests/test_app.py"}, cut="src/util/text.py"
    ).tree()
    by_path = {}
    stack = [root]
    while stack:
        node = stack.pop()
        by_path[node.path] = node
        stack.extend(node.children)
    assert mark(by_path[""]) == "[2 of 5 files omitted, 1 cut]"
    assert mark(by_path["big.lock"]) == "[omitted]"
    assert mark(by_path["tests"]) == "[omitted]"
    assert mark(by_path["src"]) == "[1 cut]"
    assert mark(by_path["src/util/text.py"]) == "[cut]"
    assert mark(by_path["README.md"]) == ""
    assert mark(build_stats([]).tree()) == ""


def test_stats_text() -> None:
    root = build_stats(ENTRIES, omitted={"big.lock", "tests/test_app.py"}, cut="src/util/text.py")
    assert stats_text(root) == (
        "    size  lines    tokens  path\n"
        "424.3 KB  9,820  ~128,950  . (5 files)  [2 of 5 files omitted, 1 cut]\n"
        "390.6 KB  9,000  ~120,000  ├── big.lock  [omitted]\n"
        " 18.6 KB    300    ~5,000  ├── README.md\n"
        " 14.6 KB    500    ~3,800  ├── src/  [1 cut]\n"
        " 11.7 KB    400    ~3,000  │   ├── util/  [1 cut]\n"
        " 11.7 KB    400    ~3,000  │   │   └── text.py  [cut]\n"
        "  2.9 KB    100      ~800  │   └── app.py\n"
        "   500 B     20      ~150  └── tests/  [omitted]\n"
        "   500 B     20      ~150      └── test_app.py  [omitted]\n"
    )


def test_stats_text_quotes_names_that_would_break_a_row() -> None:
    text = stats_text(build_stats([StatsEntry("bad\nname/x.txt", 1, 1, 1)]))
    assert text.splitlines()[2].endswith('└── "bad\\nname"/')
    assert len(text.splitlines()) == 4


def test_stats_text_writes_every_name_as_a_header_writes_it() -> None:
    # Names are checked all at once, and drawn again with `header_path` if any would change.
    plain = ["café.md", 'say "hi".txt', "a b.txt"]
    odd = ['"quoted.txt', "no\u00a0break.txt", "tab\there.txt", "sep\u2028.txt"]
    for names in (plain[::2], plain, [*plain, odd[0]], plain + odd):
        entries = [StatsEntry(name, 100 - i, 1, 100 - i) for i, name in enumerate(names)]
        rows = stats_text(build_stats(entries)).splitlines()[2:]
        assert [row.split("── ", 1)[1] for row in rows] == [header_path(name) for name in names]
    assert [header_path(name) for name in odd] == [
        '"\\"quoted.txt"',
        "no\u00a0break.txt",
        '"tab\\there.txt"',
        '"sep\\u2028.txt"',
    ]


def test_stats_text_keeps_the_spaces_a_name_ends_with() -> None:
    entries = [StatsEntry("src/a.py ", 1, 1, 1), StatsEntry("docs /b.md", 2, 1, 2)]
    rows = stats_text(build_stats(entries)).splitlines()
    assert rows[2].endswith("├── docs /") and rows[3].endswith("└── b.md")
    assert rows[5].endswith("└── a.py ")  # the name as it is, unmarked: nothing after it


def test_a_path_with_empty_parts_is_placed_by_its_names() -> None:
    root = build_stats([StatsEntry("a//b.txt", 1, 1, 1), StatsEntry("a/c.txt", 1, 1, 1)]).tree()
    assert [child.name for child in root.children] == ["a"]
    assert sorted(child.name for child in root.children[0].children) == ["b.txt", "c.txt"]


def test_stats_json() -> None:
    root = build_stats(ENTRIES[:2], omitted={"src/app.py"})
    assert stats_json(root) == {
        "name": ".",
        "path": "",
        "type": "directory",
        "bytes": 22000,
        "lines": 400,
        "estimatedTokens": 5800,
        "files": 2,
        "omittedFiles": 1,
        "cutFiles": 0,
        "children": [
            {
                "name": "README.md",
                "path": "README.md",
                "type": "file",
                "bytes": 19000,
                "lines": 300,
                "estimatedTokens": 5000,
                "omitted": False,
                "cut": False,
            },
            {
                "name": "src",
                "path": "src",
                "type": "directory",
                "bytes": 3000,
                "lines": 100,
                "estimatedTokens": 800,
                "files": 1,
                "omittedFiles": 1,
                "cutFiles": 0,
                "children": [
                    {
                        "name": "app.py",
                        "path": "src/app.py",
                        "type": "file",
                        "bytes": 3000,
                        "lines": 100,
                        "estimatedTokens": 800,
                        "omitted": True,
                        "cut": False,
                    }
                ],
            },
        ],
    }
    json.dumps(stats_json(root))


def test_a_very_deep_tree_is_built_and_rendered() -> None:
    path = "d/" * 2000 + "f.txt"
    root = build_stats([StatsEntry(path, 7, 1, 2)])
    text = stats_text(root)
    assert len(text.splitlines()) == 2 + 2001
    data = stats_json(root)
    depth = 0
    node = data
    while node["type"] == "directory":
        children = node["children"]
        assert isinstance(children, list)
        node = children[0]
        depth += 1
    assert (depth, node["path"]) == (2001, path)


def test_the_tree_and_its_text_take_a_few_hundred_bytes_a_file() -> None:
    # A file is a few numbers in arrays and its name (each name once); a directory its
    # path; the text is written a piece of rows at a time. Before, a file was a node and
    # a path string, a directory a node with a dict, and the text was made whole: about
    # 1.3 KB a file at the peak, where it is now about 240 bytes (a directory every two
    # files, as babel's fixtures have).
    import tracemalloc

    def peak(count: int) -> int:
        tracemalloc.start()
        try:
            tree = StatsTree()
            for number in range(count):
                case = number // 2
                directory = f"packages/p{case % 40:02d}/test/fixtures/case-{case:05d}"
                name = f"{'input' if number % 2 else 'output'}-{number}.js"
                tree.add(f"{directory}/{name}", 100 + number, 3, 30 + number % 7)
            rows = sum(piece.count("\n") for piece in tree.finish().pieces())
            # the heading and the root, the files, their directories, and packages/p*/test/fixtures
            assert rows == 2 + count + count // 2 + 1 + 40 * 3
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    small, large = peak(2_000), peak(20_000)
    assert (large - small) / 18_000 < 600, (small, large)
