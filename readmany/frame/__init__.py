"""The frame stage: one module per framing (heredoc, separator, hashline)."""
