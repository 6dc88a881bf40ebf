"""The emit stage: content to stdout, `-o` or the clipboard; diagnostics to stderr.

`sink` streams the content (text or JSON), `stdout` and `target` (`-o`) write it,
`clipboard` copies it, `render` runs a command into them and reports, `messages` and
`summary` speak on stderr. Only this stage touches stdout, stderr and the clipboard.
"""
