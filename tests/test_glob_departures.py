"""Each decided departure from the reference (spec/glob.md section 13), on the reference's trees.

Where a departure case has a golden, the expected text is the golden with exactly the
parts the departure changes replaced, so everything else is still checked byte for byte.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

from helpers import run_readmany
from test_glob_conformance import CASES_DIR, case_args, glob_fixtures, load

__all__ = ["glob_fixtures"]

REFERENCE_BINARIES = ["bin/blob.dat", "bin/ctrl.txt", "bin/fake_pdf.txt", "bin/late_nul.txt"]
REFERENCE_BINARIES += ["bin/nul.txt"]


def golden_parts(name: str, root: str) -> list[Any]:
    _, golden = load(name)
    return [
        p.replace("{ROOT}", root) if isinstance(p, str) else p
        for p in golden["result"]["llmContent"]
    ]


def section(parts: list[Any], root: str, rel: str) -> int:
    """Index of the text part that is `rel`'s section."""
    header = f"--- {root}/{rel} ---\n\n"
    return next(i for i, p in enumerate(parts) if isinstance(p, str) and p.startswith(header))


def text_of(parts: list[Any]) -> str:
    return "".join(p for p in parts if isinstance(p, str))


def reference_run(name: str, root: str, *extra: str) -> tuple[str, int]:
    case, _ = load(name)
    done = run_readmany(["glob", "--compat", *extra, *case_args(case["params"], root)], cwd=root)
    return done.stdout.decode("utf-8"), done.returncode


def json_run(root: str | Path, *args: str) -> dict[str, Any]:
    done = run_readmany(["glob", "--compat", "--json", *args], cwd=root)
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def repo_of(fixtures: Path) -> str:
    return str(fixtures / "repo")


def test_departure_cases_are_the_ones_listed() -> None:
    departures = json.loads((CASES_DIR / "departures.json").read_text())
    assert sorted(departures) == [
        "04_directory_plain",
        "05_directory_slash",
        "11_everything",
        "16_image_by_name",
        "19_binaries",
        "20_encodings",
        "21_truncation_lines",
        "22_truncation_line_length",
        "40_media_audio_video",
        "43_invalid_missing_include",
        "44_invalid_empty_include",
        "45_invalid_empty_string",
        "46_invalid_type",
        "50_explicit_request_substring",
        "53_exclude_dir_trailing_slash",
    ]


# --- 1. a directory means everything under it ---


def test_1_directory_plain_and_with_slash(glob_fixtures: Path) -> None:
    root = repo_of(glob_fixtures)
    expected = text_of(golden_parts("06_directory_starstar", root)) + "\n"
    assert reference_run("04_directory_plain", root) == (expected, 0)
    assert reference_run("05_directory_slash", root) == (expected, 0)


def test_1_directory_without_recursion(glob_fixtures: Path) -> None:
    root = repo_of(glob_fixtures)
    done = run_readmany(["glob", "--compat", "--no-recursive", "src"], cwd=root)
    assert done.stdout.decode() == (
        "--- src/Upper.TS ---\n\nexport const upper = true;\n\n\n"
        "--- src/a.ts ---\n\nexport const a = 1;\n\n\n"
        "--- src/b.js ---\n\nmodule.exports = 2;\n\n\n"
        "\n--- End of content ---\n"
    )


# --- 2. binary files are skipped ---


def test_2_binaries_are_skipped_and_listed(glob_fixtures: Path) -> None:
    root = repo_of(glob_fixtures)
    stdout, status = reference_run("19_binaries", root)
    assert (stdout, status) == (
        "No files matching the criteria were found or all were skipped.\n",
        0,
    )
    details = json_run(root, "bin/*")["details"]
    assert details["files"] == []
    assert details["skipped"] == [{"path": p, "reason": "binary file"} for p in REFERENCE_BINARIES]


def test_2_everything_is_the_reference_without_binaries(glob_fixtures: Path) -> None:
    """`**/*` differs from the reference exactly where departures 2, 4, 5, 6 and 7 say."""
    root = repo_of(glob_fixtures)
    parts = golden_parts("11_everything", root)
    for rel in REFERENCE_BINARIES:
        del parts[section(parts, root, rel)]
    parts[section(parts, root, "enc/latin1.txt")] = (
        f"--- {root}/enc/latin1.txt ---\n\ncaf\ufffd cr\ufffdme\n\n\n"
    )
    parts[section(parts, root, "big/lines2000.txt")] = (
        f"--- {root}/big/lines2000.txt ---\n\n"
        + "".join(f"L{i}\n" for i in range(1, 2001))
        + "\n\n"
    )
    emoji = section(parts, root, "big/emoji_line.txt")
    parts[emoji] = parts[emoji].replace("\ud83d... [truncated]", "... [truncated]")
    assert "\ud83d..." not in parts[emoji]
    stdout, status = reference_run("11_everything", root)
    assert status == 1  # the dangling link and the link to a directory
    assert stdout == text_of(parts) + "\n"


# --- 3. binary detection looks at 8000 bytes, control characters, %PDF- ---


def test_3_detection_window_and_rules(tmp_path: Path) -> None:
    (tmp_path / "late_nul.txt").write_bytes(b"a" * 600 + b"\0tail\n")
    (tmp_path / "very_late_nul.txt").write_bytes((b"a" * 99 + b"\n") * 80 + b"\0tail\n")
    (tmp_path / "ctrl.txt").write_bytes(b"\x01" * 11 + b"a" * 89)
    (tmp_path / "ansi.txt").write_bytes(b"\x1b[1mbold\x1b[0m\t\x0c\n")
    (tmp_path / "fake_pdf.txt").write_bytes(b"%PDF-1.4 pretend\n")
    result = json_run(tmp_path, "*.txt")
    assert result["details"]["files"] == ["ansi.txt", "very_late_nul.txt"]
    assert result["details"]["skipped"] == [
        {"path": "ctrl.txt", "reason": "binary file"},
        {"path": "fake_pdf.txt", "reason": "binary file"},
        {"path": "late_nul.txt", "reason": "binary file"},
    ]
    assert result["content"] == (
        "--- ansi.txt ---\n\n\x1b[1mbold\x1b[0m\t\x0c\n\n\n"
        "--- very_late_nul.txt ---\n\n" + ("a" * 99 + "\n") * 80 + "\0tail\n\n\n"
        "\n--- End of content ---"
    )


# --- 4. bytes >= 0x80 never make a file binary; invalid UTF-8 is lossy text ---


def test_4_encodings(glob_fixtures: Path) -> None:
    root = repo_of(glob_fixtures)
    parts = golden_parts("20_encodings", root)
    parts[section(parts, root, "enc/latin1.txt")] = (
        f"--- {root}/enc/latin1.txt ---\n\ncaf\ufffd cr\ufffdme\n\n\n"
    )
    assert reference_run("20_encodings", root) == (text_of(parts) + "\n", 0)
    read = json_run(root, "enc/*")["details"]["read"]
    assert [r["path"] for r in read if r["lossy"]] == ["enc/latin1.txt", "enc/latin1_long.txt"]
    assert all(r["lossy"] is False for r in read if not r["path"].startswith("enc/latin1"))


# --- 5. long lines are cut without splitting a code point ---


def test_5_line_length(glob_fixtures: Path) -> None:
    root = repo_of(glob_fixtures)
    parts = golden_parts("22_truncation_line_length", root)
    emoji = section(parts, root, "big/emoji_line.txt")
    assert parts[emoji].count("\ud83d... [truncated]") == 1
    parts[emoji] = parts[emoji].replace("\ud83d... [truncated]", "... [truncated]")
    stdout, status = reference_run("22_truncation_line_length", root)
    assert (stdout, status) == (text_of(parts) + "\n", 0)
    assert "a" + "\U0001f600" * 999 + "... [truncated]\n" in stdout


# --- 6. exactly 2000 terminated lines are whole ---


def test_6_two_thousand_lines(glob_fixtures: Path) -> None:
    root = repo_of(glob_fixtures)
    parts = golden_parts("21_truncation_lines", root)
    whole = "".join(f"L{i}\n" for i in range(1, 2001))
    parts[section(parts, root, "big/lines2000.txt")] = (
        f"--- {root}/big/lines2000.txt ---\n\n{whole}\n\n"
    )
    assert reference_run("21_truncation_lines", root) == (text_of(parts) + "\n", 0)


# --- 7. the asset gate: last component, no case, video gated ---


def test_7_image_by_stem_ignores_case(glob_fixtures: Path) -> None:
    root = repo_of(glob_fixtures)
    photo = (glob_fixtures / "repo" / "img" / "photo.JPG").read_bytes()
    for pattern in ("img/photo.*", "img/*.jpg", "img/*.JPG", "img/photo.JPG"):
        result = json_run(root, pattern)
        assert result["content"] == "\n--- End of content ---"
        assert result["attachments"] == [
            {
                "path": "img/photo.JPG",
                "mimeType": "image/jpeg",
                "data": base64.b64encode(photo).decode(),
            }
        ]


def test_7_video_is_gated_and_textual_media_is_text(glob_fixtures: Path) -> None:
    root = repo_of(glob_fixtures)
    stdout, status = reference_run("40_media_audio_video", root)
    assert (stdout, status) == (
        f"--- {root}/media/textual.mp3 ---\n\nthis mp3 is actually text\n\n\n"
        "\n--- End of content ---\n",
        0,
    )
    details = json_run(root, "media/*")["details"]
    assert details["skipped"] == [
        {
            "path": "media/clip.mp4",
            "reason": "asset file (video) was not explicitly requested by name or extension",
        },
        {
            "path": "media/sound.mp3",
            "reason": "asset file (image/pdf/audio) was not explicitly requested by name "
            "or extension",
        },
    ]


def test_7_a_bare_stem_requests_only_its_file(glob_fixtures: Path) -> None:
    root = repo_of(glob_fixtures)
    result = json_run(root, "img/*", "logo")
    parts = golden_parts("50_explicit_request_substring", root)
    assert result["content"] == text_of(parts)
    assert [(a["path"], a["mimeType"], a["data"]) for a in result["attachments"]] == [
        ("img/logo.png", p["inlineData"]["mimeType"], p["inlineData"]["data"])
        for p in parts
        if isinstance(p, dict)
    ]
    assert [s["path"] for s in result["details"]["skipped"]] == ["img/photo.JPG", "img/pic.gif"]


def test_7_a_name_elsewhere_in_a_pattern_requests_nothing(glob_fixtures: Path) -> None:
    root = repo_of(glob_fixtures)
    result = json_run(root, "img/*", "docs/logo-notes/*")
    assert result["attachments"] == []
    assert result["content"] == "No files matching the criteria were found or all were skipped."


# --- 8. an exclude ending in / excludes the directory's files ---


def test_8_exclude_with_trailing_slash(glob_fixtures: Path) -> None:
    root = repo_of(glob_fixtures)
    parts = golden_parts("53_exclude_dir_trailing_slash", root)
    del parts[section(parts, root, "src/nested/deep/c.py")]
    assert reference_run("53_exclude_dir_trailing_slash", root) == (text_of(parts) + "\n", 0)


# --- 9. relative paths by default; --absolute gives the reference's form ---


def test_9_relative_paths_by_default(glob_fixtures: Path) -> None:
    root = repo_of(glob_fixtures)
    done = run_readmany(["glob", "--compat", "README.md"], cwd=root)
    assert done.stdout.decode() == (
        "--- README.md ---\n\n# Fixture\n\nHello from README.\n\n\n\n--- End of content ---\n"
    )


def test_9_skipped_entries_use_the_same_form(glob_fixtures: Path) -> None:
    root = repo_of(glob_fixtures)
    fixtures = str(glob_fixtures)
    _, golden = load("34_outside_dotdot")
    reference = [
        {"path": s["path"].replace("{FIX}", fixtures), "reason": s["reason"]}
        for s in golden["result"]["returnDisplay"]["skipped"]
    ]
    absolute = json_run(root, "--absolute", "../outside/*")["details"]["skipped"]
    assert sorted(absolute, key=lambda s: s["path"]) == sorted(reference, key=lambda s: s["path"])
    relative = json_run(root, "../outside/*")["details"]["skipped"]
    assert relative == [
        {"path": "../outside/other.txt", "reason": "Security: Path not in workspace"},
        {"path": "../outside/secret_outside.txt", "reason": "Security: Path not in workspace"},
    ]
    huge = json_run(root, "big/huge.txt")["details"]["skipped"]
    assert huge == [
        {
            "path": "big/huge.txt",
            "reason": "Read error: File size exceeds the 20MB limit: big/huge.txt (20.00MB)",
        }
    ]


# --- 10. .readmanyignore always, --ignore-file for more, GEMINI.md not excluded ---


def test_10_geminiignore_only_when_named(glob_fixtures: Path) -> None:
    root = repo_of(glob_fixtures)
    plain = json_run(root, "private/*", "foo.cfg")["details"]
    assert plain["files"] == ["foo.cfg", "private/notes.txt"]
    named = json_run(root, "--ignore-file", ".geminiignore", "private/*", "foo.cfg")["details"]
    assert named["files"] == []
    assert named["skipped"] == [
        {"path": "foo.cfg", "reason": "ignored by project ignore files"},
        {"path": "private/", "reason": "ignored by project ignore files"},
    ]


def test_10_readmanyignore_is_always_honoured(tmp_path: Path) -> None:
    (tmp_path / ".readmanyignore").write_text("secret.txt\n")
    (tmp_path / "secret.txt").write_text("s\n")
    (tmp_path / "GEMINI.md").write_text("# context\n")
    done = run_readmany(["glob", "--compat", "secret.txt", "GEMINI.md"], cwd=tmp_path)
    assert done.stdout.decode() == (
        "--- GEMINI.md ---\n\n# context\n\n\n\n--- End of content ---\n"
    )


# --- 11. requested images in text output ---


def test_11_text_mode_attachment_is_a_data_url_section(glob_fixtures: Path) -> None:
    root = repo_of(glob_fixtures)
    data = golden_parts("15_png_by_extension", root)[0]["inlineData"]["data"]
    done = run_readmany(["glob", "--compat", "img/*.png"], cwd=root)
    assert done.stdout.decode() == (
        f"--- img/logo.png ---\n\ndata:image/png;base64,{data}\n\n\n--- End of content ---\n"
    )
    result = json_run(root, "img/*.png")
    assert result["content"] == "\n--- End of content ---"
    assert result["attachments"] == [
        {"path": "img/logo.png", "mimeType": "image/png", "data": data}
    ]


# --- schema errors of the reference are usage errors ---


def test_usage_errors_write_nothing(glob_fixtures: Path) -> None:
    root = repo_of(glob_fixtures)
    for args, message in [
        ([], "no pattern given"),
        ([""], "empty pattern"),
        (["{1..5000}"], "pattern expands to more than 1000 alternatives"),
        (["--root", "README.md", "*"], "is not a directory"),
    ]:
        done = run_readmany(["glob", "--compat", *args], cwd=root)
        assert done.returncode == 2, args
        assert done.stdout == b"", args
        assert message in done.stderr.decode(), args
