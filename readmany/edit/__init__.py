"""The edit: anchored edits to a file's bytes (`anchored`), checked and written safely
beneath the root (`files`)."""
