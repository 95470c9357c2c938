"""Text and HTML boards for Squire. They read only a view dict."""
from __future__ import annotations

import html
from typing import Any, Mapping

from ..base import seat_label


def render_text(view: Mapping[str, Any]) -> str:
    return view["status"] + "\n"


def render_html(view: Mapping[str, Any]) -> str:
    return "<p>" + html.escape(view["status"]) + "</p>"
