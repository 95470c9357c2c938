"""Logging for the worker, the receiver and the web: text for a
terminal, or one JSON object a line (python-json-logger) for production
(PBEM_LOG_FORMAT=json). A mail's processing carries its inbound id, and its
game id once the pipeline knows it, on every line: the pipeline sets them in
a context variable (``context``, ``bind``) and a filter on the handler copies
them onto each record, whatever logger wrote it."""
from __future__ import annotations

import logging
import sys
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Iterator

from pbem.config import Settings, settings

FIELDS: ContextVar[dict] = ContextVar("pbem_log_fields", default={})
TEXT_FORMAT = "%(asctime)s %(name)s %(levelname)s %(message)s"
JSON_FIELDS = "%(name)s %(levelname)s %(message)s %(process)d %(threadName)s"


@contextmanager
def context(**fields) -> Iterator[None]:
    """Every line logged inside (in this thread or task) carries ``fields``;
    what ``bind`` adds inside ends with it too."""
    token = FIELDS.set({**FIELDS.get(), **{k: v for k, v in fields.items() if v is not None}})
    try:
        yield
    finally:
        FIELDS.reset(token)


def bind(**fields) -> None:
    """Add fields to the current context (the game id, once known), until
    it ends. Outside any ``context`` it does nothing (the fields would stay
    on the thread's later lines)."""
    current = FIELDS.get()
    if not current:
        return
    new = {k: v for k, v in fields.items() if v is not None and current.get(k) != v}
    if new:
        FIELDS.set({**current, **new})


class ContextFilter(logging.Filter):
    """Copies the context's fields onto each record (a handler's filter: it
    sees the records of every logger, propagated ones too)."""

    def filter(self, record: logging.LogRecord) -> bool:
        for k, v in FIELDS.get().items():
            if not hasattr(record, k):
                setattr(record, k, v)
        return True


class TextFormatter(logging.Formatter):
    """The usual line, with the context's fields at its end: `[inbound_id=12 game_id=3]`."""

    def format(self, record: logging.LogRecord) -> str:
        line = super().format(record)
        fields = " ".join(f"{k}={getattr(record, k)}" for k in ("inbound_id", "game_id", "outbound_ids")
                          if hasattr(record, k))
        return f"{line} [{fields}]" if fields else line


def formatter(fmt: str, service: str) -> logging.Formatter:
    if fmt == "json":
        from pythonjsonlogger.json import JsonFormatter

        return JsonFormatter(JSON_FIELDS, rename_fields={"levelname": "level", "name": "logger"},
                             static_fields={"service": service}, timestamp="time")  # ISO 8601, UTC
    return TextFormatter(TEXT_FORMAT)


def configure(service: str, cfg: Settings | None = None, *, level: int | str | None = None, stream=None) -> logging.Handler:
    """The root logger's one handler (ours, replacing an earlier one of ours),
    in the settings' format; ``service`` (worker, receiver, web) is a field
    of every JSON line. Returns the handler."""
    cfg = cfg or settings()
    root = logging.getLogger()
    for h in list(root.handlers):
        if getattr(h, "pbem", False):
            root.removeHandler(h)
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.pbem = True
    handler.setFormatter(formatter(cfg.log_format, service))
    handler.addFilter(ContextFilter())
    root.addHandler(handler)
    root.setLevel(level if level is not None else cfg.log_level)
    logging.captureWarnings(True)  # Python's warnings too, as lines of the same format
    return handler
