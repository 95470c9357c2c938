"""Lists in pages: a list page reads one page of rows, never the
whole list, so that it costs the same however much is stored.

Pages are numbered (``?page=2``) rather than cursor-keyed: the archive
numbered its pages first, the lists' orders are on several keys (my games:
my turn first, then by deadline, then by activity), and the pages people
read are the first few, whose OFFSET walks a few dozen index entries."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, TypeVar

from sqlmodel import Session
from sqlmodel.sql.expression import Select, SelectOfScalar

T = TypeVar("T")


@dataclass(frozen=True)
class Page(Generic[T]):
    rows: list[T]
    page: int  # 1 = the first
    more: bool  # a next page exists


def fetch(s: Session, q: Select | SelectOfScalar, page: int, per_page: int) -> Page:
    """Page ``page`` of the ordered query ``q``: one statement, one row more than the page to
    know whether another page follows (no COUNT over the whole list)."""
    page = max(1, int(page))
    rows = list(s.exec(q.offset((page - 1) * per_page).limit(per_page + 1)))
    return Page(rows[:per_page], page, len(rows) > per_page)
