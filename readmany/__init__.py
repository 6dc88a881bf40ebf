"""readmany: read many files at once, framed, budgeted and byte-exact."""

__version__ = "0.1.0"
