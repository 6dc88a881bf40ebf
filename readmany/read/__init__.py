"""The read stage: bytes on disk to immutable read results. The only stage touching files."""
