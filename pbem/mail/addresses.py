"""The two kinds of address pbem answers on (DESIGN.md §4):
``<command>@<domain>`` for account commands and ``game-<id>.<token>@<domain>``
for a seat. Tokens are never logged in clear: use redact()."""
from __future__ import annotations

import re
from dataclasses import dataclass
from email.utils import parseaddr

SEAT_RE = re.compile(r"^game-(\d{1,12})\.([a-z2-7]{16,64})$")
SUBJECT_TAG_RE = re.compile(r"\[pbem #(\d{1,12})(?:\s+ply\s+(\d{1,9}))?\]", re.I)
TOKEN_IN_TEXT_RE = re.compile(r"(game-\d+\.)[a-z2-7]{16,64}", re.I)


@dataclass(frozen=True)
class Recipient:
    kind: str  # "command" | "seat"
    game_id: int | None = None
    token: str | None = None


def seat_address(game_id: int, token: str, domain: str) -> str:
    return f"game-{game_id}.{token}@{domain}"


def parse_recipient(addr: str, domain: str, command_local: str) -> Recipient | None:
    """What an envelope recipient means, or None if it is not ours."""
    addr = parseaddr(addr or "")[1].strip().lower()
    local, _, dom = addr.rpartition("@")
    if not local or dom != domain.lower():
        return None
    if local == command_local.lower():
        return Recipient("command")
    m = SEAT_RE.match(local)
    if m:
        return Recipient("seat", int(m.group(1)), m.group(2))
    return None


def subject_tag(game_id: int, ply: int | None = None) -> str:
    return f"[pbem #{game_id}" + (f" ply {ply}" if ply is not None else "") + "]"


def parse_subject_tag(subject: str) -> tuple[int | None, int | None]:
    m = SUBJECT_TAG_RE.search(subject or "")
    if not m:
        return None, None
    return int(m.group(1)), (int(m.group(2)) if m.group(2) else None)


def redact(text: str) -> str:
    """Hide reply tokens in anything that goes to a log."""
    return TOKEN_IN_TEXT_RE.sub(r"\1<token>", text or "")
