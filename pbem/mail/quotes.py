"""Strip quoted replies and signatures. mail-parser-reply knows the reply
headers of the common Western mail clients; pbem adds Russian and Bulgarian
headers, its own board marker and phone signatures."""
from __future__ import annotations

import re
from dataclasses import dataclass

from mailparser_reply import EmailReplyParser

# a line where a quoted older mail begins, in clients mail-parser-reply does not know
CUT_RE = re.compile(
    r"^\s*("
    r".*(написал|написала|написал\(а\)|пишет|написа|писал)\s*:\s*$"  # ru / bg reply headers
    r"|-{2,}\s*(исходное сообщение|original message|пересылаемое сообщение|оригинално съобщение)\s*-{2,}"
    r"|_{5,}"  # Outlook's rule above the quoted header block
    r"|(from|от|de|von|da)\s*:\s.*@.*"
    r"|.*<[^<>@\s]+@[^<>\s]+>\s*:\s*$"  # "22.11.2026, 10:00, "pbem" <x@y>:" (Yandex, Mail.ru)
    r"|={3,} pbem board ={3,}"  # our own board marker, when the client quotes without '>'
    r")",
    re.I,
)
# lines a client puts in place of an inline image: not something the user wrote
PLACEHOLDER_RE = re.compile(r"^\s*\[(cid|image):[^\]]*\]\s*$", re.I)
SIGNATURE_RE = re.compile(
    r"^\s*(-- ?|--|sent from my .*|отправлено с .*|изпратено от .*|inviato da .*|get outlook for .*)\s*$",
    re.I,
)
LANGUAGES = ["en", "de", "fr", "it", "es", "nl", "pl", "cs"]


@dataclass
class Stripped:
    text: str
    dropped: int  # lines removed as quotes or signature


def strip_reply(text: str) -> Stripped:
    lines = (text or "").split("\n")
    total = sum(1 for ln in lines if ln.strip())
    kept: list[str] = []
    for line in lines:
        if CUT_RE.match(line) or SIGNATURE_RE.match(line):
            break
        if line.lstrip().startswith(">") or PLACEHOLDER_RE.match(line):
            continue
        kept.append(line)
    body = "\n".join(kept)
    try:
        parsed = EmailReplyParser(languages=LANGUAGES).parse_reply(text=body)
        # mail-parser-reply keeps the signature after "--": cut it ourselves
        parsed = "\n".join(_before_signature(parsed.split("\n")))
    except Exception:
        parsed = body
    left = sum(1 for ln in parsed.split("\n") if ln.strip())
    return Stripped(parsed.strip("\n"), max(0, total - left))


def _before_signature(lines: list[str]) -> list[str]:
    out = []
    for ln in lines:
        if SIGNATURE_RE.match(ln):
            break
        out.append(ln)
    return out
