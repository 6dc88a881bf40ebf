"""The `--- path ---` framer: exact bytes of sections, the end marker and the empty result."""

from __future__ import annotations

from readmany.frame.separator import (
    END_OF_CONTENT,
    NO_FILES,
    frame_data_url,
    frame_end,
    frame_separator,
    section_head,
)


def test_section_of_a_text_file() -> None:
    assert frame_separator("src/a.ts", "export const a = 1;\n") == (
        "--- src/a.ts ---\n\nexport const a = 1;\n\n\n"
    )


def test_empty_file_is_a_header_and_two_blank_lines() -> None:
    assert frame_separator("enc/empty.txt", "") == "--- enc/empty.txt ---\n\n\n\n"


def test_truncated_section_carries_the_warning_before_the_body() -> None:
    assert frame_separator("big.txt", "line 1\nline 2", truncated=True) == (
        "--- big.txt ---\n\n"
        "[WARNING: This file was truncated. To view the full content, use the 'read_file' "
        "tool on this specific file.]\n\n"
        "line 1\nline 2\n\n"
    )


def test_head_plus_body_plus_tail_is_the_section() -> None:
    assert section_head("a", truncated=True) + "x" + "\n\n" == frame_separator("a", "x", True)


def test_end_marker_and_no_files_sentence() -> None:
    assert frame_end(True) == END_OF_CONTENT == "\n--- End of content ---"
    assert frame_end(False) == NO_FILES
    assert NO_FILES == "No files matching the criteria were found or all were skipped."


def test_whole_output_of_one_file_matches_the_reference_shape() -> None:
    text = frame_separator("/r/README.md", "# Fixture\n\nHello from README.\n") + frame_end(True)
    assert (
        text
        == "--- /r/README.md ---\n\n# Fixture\n\nHello from README.\n\n\n\n--- End of content ---"
    )


def test_asset_in_text_output_is_a_data_url_section() -> None:
    assert frame_data_url("img/logo.png", "image/png", "iVBORw0K") == (
        "--- img/logo.png ---\n\ndata:image/png;base64,iVBORw0K\n\n"
    )


def test_a_path_that_could_forge_a_header_is_quoted() -> None:
    assert frame_separator("a\n--- b ---", "x") == '--- "a\\n--- b ---" ---\n\nx\n\n'
