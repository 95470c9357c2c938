"""CPU per hostile mail, from 1 KB to the size limit (docs/RELIABILITY.md §3): the worst
inputs known for a mail reader, each made at several sizes, stored as the
receiver stores them and run through ``process_inbound`` as the worker runs
it (MIME -> text -> quotes -> identify -> commands, in a real PostgreSQL
transaction, the answer rendered and delivered to the maildir). Every mail
goes to a seat's address of a running game and asks STATUS, so each is
read, identified and answered; none changes the game.

What is measured is the CPU time of this process (``time.process_time``):
the receiver's store of the mail and the worker's processing of it, each
the median of a few mails. Per KB, a linear input costs the same at every
size above the first (where the fixed cost of a mail dominates); an input
whose cost per KB grows with the size is super-linear and reported so."""
from __future__ import annotations

import base64
import quopri
import statistics
import time
import uuid
from dataclasses import dataclass
from typing import Callable

from .env import free_port, make_games

KB = 1024
SIZES_KB = (1, 64, 512, 2048)
LINE = 998  # octets a line may have over SMTP (RFC 5321), CRLF not counted
CRLF = "\r\n"


def _head(to: str, frm: str, mid: str, gid: int, *extra: str) -> str:
    return CRLF.join([f"From: {frm}", f"To: {to}", f"Subject: Re: [pbem #{gid}] hostile", f"Message-ID: {mid}",
                      "MIME-Version: 1.0", *extra]) + CRLF + CRLF


def _fill(size: int, used: int, unit: str) -> str:
    """As many ``unit`` as fit in ``size`` bytes after ``used``."""
    return unit * max(0, (size - used) // len(unit.encode()))


def _fitted(room: int, body: Callable[[int], str], n: int) -> str:
    """``body(n)`` for the largest ``n`` (from a guess down) whose text fits in ``room`` bytes."""
    while True:
        text = body(n)
        if len(text) <= room or n <= 0:
            return text
        n = min(n - 1, n * room // len(text))


def blank_lines(size: int, head: Callable[..., str]) -> str:
    """One command, then nothing but empty lines (20,000 at 40 KB, a million at 2 MiB)."""
    top = head("Content-Type: text/plain; charset=utf-8") + "STATUS" + CRLF
    return top + _fill(size, len(top), CRLF)


def on_on_line(size: int, head: Callable[..., str]) -> str:
    """One line of "On On On ...": every word could begin an attribution line ("On ... wrote:").
    Quoted-printable with soft line breaks, so it passes SMTP and decodes to a single line."""
    top = head("Content-Type: text/plain; charset=utf-8", "Content-Transfer-Encoding: quoted-printable")
    return top + _fitted(size - len(top), lambda n: quopri.encodestring(("STATUS\n" + "On " * n).encode())
                         .decode().replace("\n", CRLF), (size - len(top)) // 3)


def quoted_lines(size: int, head: Callable[..., str]) -> str:
    """A mail of '>'-quoted lines, some of them attribution and header lines."""
    top = head("Content-Type: text/plain; charset=utf-8") + "STATUS" + CRLF + CRLF
    unit = ("> On Sun, 22 Nov 2026 at 10:00, pbem <pbem@pbem.bench> wrote:" + CRLF + ">> From: pbem" + CRLF
            + ">>> lorem ipsum dolor sit amet, consectetur adipiscing elit" + CRLF)
    return top + _fill(size, len(top), unit)


def html_deep(size: int, head: Callable[..., str]) -> str:
    """HTML that only nests: <div> in <div> to the end of the mail (refused past libxml2's 255 levels)."""
    top = head("Content-Type: text/html; charset=utf-8") + "<p>STATUS</p>" + CRLF
    unit = "<div>" * 20 + CRLF
    return top + _fill(size, len(top), unit)


def html_wide_at_the_limit(size: int, head: Callable[..., str]) -> str:
    """HTML nested 250 deep (just inside what libxml2 reads), then paragraphs to the end."""
    top = head("Content-Type: text/html; charset=utf-8") + "<p>STATUS</p>" + CRLF
    top += (("<div>" * 50 + CRLF) * 5) if size > 4 * KB else ""
    return top + _fill(size, len(top), "<p>lorem <b>ipsum</b> dolor <i>sit</i> amet</p>" + CRLF)


def folded_from_of_dots(size: int, head: Callable[..., str]) -> str:
    """A From header of dots folded over as many lines as fit, before the address."""
    dots = _fill(size, 300, (". " * (LINE // 2 - 10)) + CRLF + " ") or ". " * ((size - 300) // 2)
    frm = f"Ann {dots}<ann@players.bench>"
    return head("Content-Type: text/plain", frm=frm) + "STATUS" + CRLF


def base64_long_lines(size: int, head: Callable[..., str]) -> str:
    """A base64 body in lines of 996 characters (the longest SMTP allows), decoding to ordinary text."""
    top = head("Content-Type: text/plain; charset=utf-8", "Content-Transfer-Encoding: base64")

    def body(n: int) -> str:
        b64 = base64.b64encode(("STATUS\n" + "lorem ipsum dolor sit amet\n" * n).encode()).decode()
        return CRLF.join(b64[i:i + 996] for i in range(0, len(b64), 996)) + CRLF

    return top + _fitted(size - len(top), body, (size - len(top)) // 36)


def many_parts(size: int, head: Callable[..., str]) -> str:
    """multipart/mixed with as many small parts as fit (the first says STATUS)."""
    top = head('Content-Type: multipart/mixed; boundary="b"')
    first = "--b" + CRLF + "Content-Type: text/plain" + CRLF + CRLF + "STATUS" + CRLF
    unit = "--b" + CRLF + "Content-Type: text/plain" + CRLF + CRLF + "x" + CRLF
    end = "--b--" + CRLF
    return top + first + _fill(size, len(top) + len(first) + len(end), unit) + end


def _nested(head: Callable[..., str], depth: int, size: int = 0) -> str:
    """Multiparts nested ``depth`` deep around one STATUS; with ``size``, empty lines fill it to that."""
    top = head('Content-Type: multipart/mixed; boundary="b0"')
    opening = "".join(f"--b{i}{CRLF}Content-Type: multipart/mixed; boundary=\"b{i + 1}\"{CRLF}{CRLF}"
                      for i in range(depth))
    inner = f"--b{depth}{CRLF}Content-Type: text/plain{CRLF}{CRLF}STATUS{CRLF}"
    closing = "".join(f"--b{i}--{CRLF}" for i in range(depth, -1, -1))
    return top + opening + inner + _fill(size, len(top) + len(opening) + len(inner) + len(closing), CRLF) + closing


def parts_at_the_depth_limit(size: int, head: Callable[..., str]) -> str:
    """Multiparts nested as deep as pbem reads (parse.MAX_DEPTH), the innermost text filled with
    empty lines: every line is checked against every enclosing boundary."""
    from pbem.mail.parse import MAX_DEPTH

    return _nested(head, MAX_DEPTH - 1, size)


def parts_nested_without_end(size: int, head: Callable[..., str]) -> str:
    """Multiparts nested as deep as the mail's size allows (2,000 levels in 170 KB; refused)."""
    return _fitted(size, lambda n: _nested(head, n), size // 60)


INPUTS: dict[str, Callable[[int, Callable[..., str]], str]] = {
    "blank lines": blank_lines,
    "On On On line": on_on_line,
    "> quoted lines": quoted_lines,
    "HTML nesting only": html_deep,
    "HTML 250 deep, wide": html_wide_at_the_limit,
    "From of folded dots": folded_from_of_dots,
    "base64, long lines": base64_long_lines,
    "many MIME parts": many_parts,
    "parts at depth limit": parts_at_the_depth_limit,
    "parts nested to the end": parts_nested_without_end,
}


def make_mail(name: str, size: int, to: str, frm: str, gid: int) -> bytes:
    """The input ``name`` as a mail of at most ``size`` bytes that SMTP carries (no line over 998 octets)."""
    mid = f"<hostile.{uuid.uuid4().hex}@players.bench>"

    def head(*extra: str, frm: str = frm) -> str:
        return _head(to, frm, mid, gid, *extra)

    raw = INPUTS[name](size, head).encode()
    longest = max(len(line) for line in raw.split(b"\r\n"))
    if longest > LINE or len(raw) > max(size, 2 * KB):
        raise ValueError(f"{name} at {size} bytes: {len(raw)} bytes, a line of {longest}")
    return raw


@dataclass
class HostileRow:
    name: str
    size_kb: int
    bytes: int
    status: str
    store_ms: float  # the receiver: Message-ID read, row inserted
    cpu_ms: float  # the worker: process_inbound, answer rendered and delivered

    def row(self, base: "HostileRow | None") -> dict:
        per_kb = 1000 * self.cpu_ms / (self.bytes / KB)
        base_kb = 1000 * base.cpu_ms / (base.bytes / KB) if base else None
        return {"input": self.name, "size": f"{self.size_kb} KB", "bytes": self.bytes, "status": self.status,
                "receiver ms": round(self.store_ms, 2), "worker ms/mail": round(self.cpu_ms, 2),
                "worker us/KB": round(per_kb, 1),
                "per KB vs 64 KB": f"{per_kb / base_kb:.2f}x" if base_kb else ""}


def run_hostile(sizes_kb: tuple[int, ...] = SIZES_KB, reps: int = 3, names: tuple[str, ...] = (),
                echo: Callable[[str], None] = lambda _: None) -> list[dict]:
    """Needs the settings installed (env.bench_settings). Returns the table's rows."""
    from sqlmodel import select

    from pbem.config import settings
    from pbem.mail.inbound import make_controller
    from pbem.mail.pipeline import process_inbound
    from pbem.store.db import unit_of_work
    from pbem.store.models import Inbound, Seat, User
    from pbem.tasks import deliver_inline

    cfg = settings()
    if max(sizes_kb) * KB > cfg.max_message_bytes:
        raise ValueError(f"sizes up to {cfg.max_message_bytes // KB} KB (PBEM_MAX_MESSAGE_BYTES)")
    handler = make_controller(cfg, host="127.0.0.1", port=free_port()).handler  # not started: its store only
    [gid] = make_games("spyrium", 2, 1, first_seed=18)
    with unit_of_work() as s:
        seat = s.exec(select(Seat).where(Seat.game_id == gid, Seat.seat == 0)).one()
        to, frm = f"game-{gid}.{seat.token}@{cfg.domain}", s.get(User, seat.user_id).email

    def one(name: str, size: int) -> tuple[str, int, float, float]:
        raw = make_mail(name, size, to, frm, gid)
        c0 = time.process_time()
        [inbound_id] = handler.store(raw, frm, [to])
        c1 = time.process_time()
        status = process_inbound(inbound_id, deliver=deliver_inline)
        c2 = time.process_time()
        if status not in ("done", "ignored"):
            with unit_of_work() as s:
                raise RuntimeError(f"{name}, {size} bytes: {status}: {s.get(Inbound, inbound_id).error}")
        return status, len(raw), 1000 * (c1 - c0), 1000 * (c2 - c1)

    one("blank lines", KB)  # warm up: imports, templates, connections
    rows: list[dict] = []
    for name in names or tuple(INPUTS):
        measured: list[HostileRow] = []
        for kb in sizes_kb:
            runs = [one(name, kb * KB) for _ in range(reps)]
            status, size = runs[0][0], runs[0][1]
            measured.append(HostileRow(name, kb, size, status, statistics.median(r[2] for r in runs),
                                       statistics.median(r[3] for r in runs)))
            echo(f"  {name}, {kb} KB: {measured[-1].cpu_ms:.1f} ms ({status})")
        base = next((m for m in measured if m.size_kb == 64), None)
        rows.extend(m.row(base) for m in measured)
    return rows


def verdicts(rows: list[dict], limit: float = 2.0) -> list[str]:
    """Per input: linear, or super-linear when the cost per KB at the largest
    size is over ``limit`` times the cost per KB at 64 KB."""
    out = []
    for name in dict.fromkeys(r["input"] for r in rows):
        mine = [r for r in rows if r["input"] == name]
        growth = mine[-1]["per KB vs 64 KB"]
        worst = max(r["worker ms/mail"] for r in mine)
        if not growth:
            out.append(f"{name}: no 64 KB row to compare with")
            continue
        factor = float(growth.rstrip("x"))
        out.append(f"{name}: {'SUPER-LINEAR' if factor > limit else 'linear'} (per KB at {mine[-1]['size']}: "
                   f"{growth} of 64 KB's; at most {worst:.0f} ms a mail)")
    return out
