"""The kinds of address pbem answers on (DESIGN.md §4):
``<command>@<domain>`` for account commands, ``game-<id>.<token>@<domain>``
for a seat, and ``confirm-<token>@<domain>``, the reply address of a mail
that asks its owner to confirm held commands, and
``bounce+<outbox id>.<mac>@<domain>``, the envelope sender of each mail pbem
sends, where its bounces come back (VERP). Tokens are never
logged in clear: use redact()."""
from __future__ import annotations

import re
from dataclasses import dataclass
from email.utils import parseaddr
from functools import lru_cache

SEAT_RE = re.compile(r"^game-(\d{1,12})\.([a-z2-7]{16,64})$")
CONFIRM_RE = re.compile(r"^confirm-([a-z2-7]{16,64})$")
BOUNCE_RE = re.compile(r"^bounce\+(\d{1,12})\.([0-9a-f]{16})$")
SUBJECT_TAG_RE = re.compile(r"\[pbem #(\d{1,12})(?:\s+ply\s+(\d{1,9}))?\]", re.I)
TOKEN_IN_TEXT_RE = re.compile(r"(game-\d+\.|confirm-)[a-z2-7]{16,64}|(bounce\+\d+\.)[0-9a-f]{16}", re.I)


@dataclass(frozen=True)
class Recipient:
    kind: str  # "command" | "seat" | "confirm" | "bounce"
    game_id: int | None = None
    token: str | None = None
    outbound_id: int | None = None  # a bounce address: the outbox row it was the envelope sender of


def seat_address(game_id: int, token: str, domain: str) -> str:
    return f"game-{game_id}.{token}@{domain}"


def normalize_address(addr: str) -> str:
    """The bare address, lower-cased: how a recipient is compared and stored
    (tokens are base32, which case-folding MTAs may capitalise)."""
    return parseaddr(addr or "")[1].strip().lower()


def parse_recipient(addr: str, domain: str, command_local: str) -> Recipient | None:
    """What an envelope recipient means, or None if it is not ours."""
    addr = normalize_address(addr)
    local, _, dom = addr.rpartition("@")
    if not local or dom != domain.lower():
        return None
    if local == command_local.lower():
        return Recipient("command")
    m = SEAT_RE.match(local)
    if m:
        return Recipient("seat", int(m.group(1)), m.group(2))
    m = CONFIRM_RE.match(local)
    if m:
        return Recipient("confirm", token=m.group(1))
    m = BOUNCE_RE.match(local)
    if m:
        return Recipient("bounce", token=m.group(2), outbound_id=int(m.group(1)))
    return None


def _verp_mac(outbound_id: int, secret: str) -> str:
    import hashlib
    import hmac

    return hmac.new(secret.encode(), f"bounce {outbound_id}".encode(), hashlib.sha256).hexdigest()[:16]


def verp_address(outbound_id: int, domain: str, secret: str) -> str:
    """The envelope sender (Return-Path) of one outbox row (VERP):
    a bounce comes back to it, and names the mail and so its recipient.
    Keyed with the installation's secret: nobody can make one up to mark
    another's address failing."""
    return f"bounce+{outbound_id}.{_verp_mac(outbound_id, secret)}@{domain}"


def verp_valid(who: Recipient, secret: str) -> bool:
    import hmac

    return (who.kind == "bounce" and who.outbound_id is not None
            and hmac.compare_digest(who.token or "", _verp_mac(who.outbound_id, secret)))


def confirm_address(token: str, domain: str) -> str:
    return f"confirm-{token}@{domain}"


def subject_tag(game_id: int, ply: int | None = None) -> str:
    return f"[pbem #{game_id}" + (f" ply {ply}" if ply is not None else "") + "]"


def game_subject(game_id: int, title: str) -> str:
    """The one subject of every mail of a game to a player (boards, receipts,
    notices, reminders, talk): with References to the game's root id
    (thread_root_id), mail clients show a game as one conversation. What a
    mail is about goes to its first line, which clients show as the preview.
    The ply is not in it (it would make a new subject per move): a reply's
    In-Reply-To says which board it answers (parse_message_refs)."""
    return f"{subject_tag(game_id)} {title}"


@lru_cache(maxsize=4096)  # every mail of a game asks for it
def thread_root_id(domain: str, game_id: int, secret: str) -> str:
    """The Message-ID every mail of a game refers to (References), the same
    for the whole game: the root of its conversation. No mail has it -- the
    clients thread by References and subject, with the root missing -- so it
    need only be stable, and not guessable from outside (keyed with the
    installation's secret, so a reused game number elsewhere is another thread)."""
    import hashlib
    import hmac

    rand = hmac.new(secret.encode(), f"game {game_id}".encode(), hashlib.sha256).hexdigest()[:16]
    return make_message_id(domain, rand, what="game", game_id=game_id)


def parse_subject_tag(subject: str) -> tuple[int | None, int | None]:
    m = SUBJECT_TAG_RE.search(subject or "")
    if not m:
        return None, None
    return int(m.group(1)), (int(m.group(2)) if m.group(2) else None)


# our own Message-IDs say what a mail was, so a reply's In-Reply-To / References tell the pipeline
# what it answers without a lookup: <pbem.<what>.<game>.<ply>.<random>@domain> (game and ply 'x'
# when the mail has none). Older ids (<pbem.<random>@domain>) carry nothing.
MESSAGE_REF_RE = re.compile(r"<pbem\.([a-z]{1,12}\d{0,3})\.(\d{1,12}|x)\.(\d{1,9}|x)\.[0-9a-f]{8,32}@([^<>\s]+)>", re.I)


@dataclass(frozen=True)
class MessageRef:
    what: str  # board | reply | notice | talk | pm<seat> (a private message from that seat) | ...
    game_id: int | None
    ply: int | None


def make_message_id(domain: str, rand: str, *, what: str = "m", game_id: int | None = None,
                    ply: int | None = None) -> str:
    return (f"<pbem.{what}.{'x' if game_id is None else game_id}.{'x' if ply is None else ply}."
            f"{rand}@{domain}>")


def parse_message_refs(value: str, domain: str) -> list[MessageRef]:
    """Our own mails that ``value`` (an In-Reply-To or References header)
    names, nearest first (the last id of References is the parent)."""
    out = []
    for m in reversed(list(MESSAGE_REF_RE.finditer(value or ""))):
        if m.group(4).lower() != domain.lower():
            continue
        out.append(MessageRef(m.group(1).lower(), None if m.group(2) == "x" else int(m.group(2)),
                              None if m.group(3) == "x" else int(m.group(3))))
    return out


def redact(text: str) -> str:
    """Hide reply tokens in anything that goes to a log."""
    return TOKEN_IN_TEXT_RE.sub(lambda m: (m.group(1) or m.group(2)) + "<token>", text or "")
