"""The select stage: which files, in which order, and which matched files are skipped.

`walk` walks the tree for include patterns and `--stdin` paths; `patterns` compiles
globs; `excludes`, `ignore` (with its `cache`) and `boundary` decide what is left out;
`candidates` holds what the stream carries. It never reads a file's contents.
"""
