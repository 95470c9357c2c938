"""Counting the SQL statements a piece of code sends (a page costs the same
whatever is stored; tests compare the counts at two sizes)."""
from __future__ import annotations

from contextlib import contextmanager

from sqlalchemy import event

from pbem.store.db import get_engine


class Seen(list):
    """The statements' texts in the order sent; ``params``: their parameters, alongside."""

    def __init__(self):
        super().__init__()
        self.params: list = []


@contextmanager
def counted():
    """The statements run meanwhile, on the configured database."""
    seen = Seen()
    eng = get_engine()

    def count(_conn, _cursor, statement, parameters, *_a):
        seen.append(statement)
        seen.params.append(parameters)
    event.listen(eng, "before_cursor_execute", count)
    try:
        yield seen
    finally:
        event.remove(eng, "before_cursor_execute", count)
