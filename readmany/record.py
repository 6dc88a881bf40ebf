"""`NamedTuple` for readmany's value types, without importing `typing` when the program runs.

Importing `typing` costs a few milliseconds at every start, and readmany needs nothing
of it but `NamedTuple`. The type checker sees `typing.NamedTuple` itself; the running
program gets a class built by `collections.namedtuple` from the same class statement:
the fields in the order of their annotations, their defaults, the docstring and every
method. Modules say `TYPE_CHECKING = False` and import the rest of `typing` under it.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import NamedTuple as NamedTuple
else:
    import collections

    # Names a record may not define: `namedtuple` makes them (as `typing` refuses them).
    _RESERVED = frozenset(
        ("__new__", "__init__", "__slots__", "__getnewargs__", "_fields", "_field_defaults")
    ) | frozenset(("_make", "_replace", "_asdict", "_source"))
    _NOT_COPIED = frozenset(("__module__", "__annotations__", "__dict__", "__weakref__"))

    class _RecordMeta(type):
        def __new__(mcls, name, bases, namespace):
            fields = list(namespace.get("__annotations__", {}))
            defaults = [namespace[field] for field in fields if field in namespace]
            record = collections.namedtuple(
                name, fields, defaults=defaults, module=namespace.get("__module__")
            )
            for key, value in namespace.items():
                if key in _RESERVED:
                    raise AttributeError(f"a record cannot define {key}: {name}")
                if key not in _NOT_COPIED and key not in fields:
                    setattr(record, key, value)
            record.__annotations__ = namespace.get("__annotations__", {})
            return record

    NamedTuple = type.__new__(_RecordMeta, "NamedTuple", (), {})
