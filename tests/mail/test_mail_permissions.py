"""The permission table by mail (docs/SECURITY.md, "By mail") is what pbem
does: the test reads the table from the document and sends every command
from every kind of sender through the real pipeline (SPF checked against
the tests' real DNS server), each cell on a table of its own, and checks
the outcome: done at once, held for the owner's confirmation, refused with
its reason, or the short answer to unknown senders. A refused or held
command changes nothing."""
from __future__ import annotations

import itertools
import re
from datetime import date, timedelta
from pathlib import Path

import pytest
from sqlmodel import func, select

from pbem.mail import pipeline
from pbem.services.core import accounts, games, moves, seating
from pbem.services.lobby import seats, tables
from pbem.services.lobby.tournaments import season
from pbem.store.db import unit_of_work
from pbem.store.models import Confirmation, Inbound, Invitation, Outbound
from tests.mailtools import CMD, mail, store_inbound

DOC = Path(__file__).resolve().parents[2] / "docs" / "SECURITY.md"
COLUMNS = ("seat address", "command address, From verified", "command address, From not verified",
           "unknown sender, verified", "unknown sender, not verified")
FAR = "192.0.2.66"  # a server no test domain's SPF names: the From is not verified
_n = itertools.count(1)


def table() -> dict[str, dict[str, str]]:
    text = DOC.read_text()
    body = text.split("<!-- mail-table -->", 1)[1].split("<!-- /mail-table -->", 1)[0]
    rows = [[c.strip() for c in line.strip().strip("|").split("|")] for line in body.strip().splitlines()]
    assert tuple(rows[0][1:]) == COLUMNS
    return {row[0].strip("`"): dict(zip(COLUMNS, row[1:])) for row in rows[2:]}


def world() -> dict:
    """One table for one cell: Ann (the sender) and P1 play running game g
    (both have moved: Ann's turn); Ann's open game o; P1's open game o2; P1's running game
    g2 with P2, whose seat P2 gave up (open to a replacement); Ann's solo practice game h (hints=on)."""
    k = next(_n)
    with unit_of_work() as s:
        ann, p1, p2 = (accounts.register(s, f"{n}{k}@x.test", f"{n.title()} {k}", confirmed=True)[0]
                       for n in ("ann", "pone", "ptwo"))
        g = tables.create(s, ann, "mini", 2, {"hand": "3"}, seed=k)
        tables.join(s, p1, g.id)
        o = tables.create(s, ann, "mini", 3, {"hand": "3"}, seed=k)
        o2 = tables.create(s, p1, "mini", 3, {"hand": "3"}, seed=k)
        g2 = tables.create(s, p1, "mini", 2, {"hand": "3"}, seed=k)
        tables.join(s, p2, g2.id)
        tables.join(s, p2, o.id)  # a player Ann may REMOVE
        s.add(Invitation(game_id=o2.id, inviter_id=p1.id, email=ann.email))  # ... and one she may ACCEPT or DECLINE
        t = season.create(s, p1, "mini", table_size=2, options={"hand": "3"}, seed=k)  # P1's league Ann has entered
        season.join(s, ann, t.id)
        h = tables.create(s, ann, "iaww", 1, {}, seed=k, hints=True)  # Ann's practice game (solo: her turn)
    with unit_of_work() as s:
        g = games.get(s, g.id)
        mover = next(x for x in seating.seats(s, g.id) if x.user_id == ann.id)
        res = moves.submit_moves(s, g.id, mover.seat, ["wait"], source="web", user_id=ann.id)
        other = next(x for x in seating.seats(s, g.id) if x.user_id == p1.id)
        if not res.applied:  # Ann is not first: P1 waits, then Ann
            moves.submit_moves(s, g.id, other.seat, ["wait"], source="web", user_id=p1.id)
            moves.submit_moves(s, g.id, mover.seat, ["wait"], source="web", user_id=ann.id)
        moves.submit_moves(s, g.id, other.seat, ["wait"], source="web", user_id=p1.id)  # Ann's turn again
        seats.resign(s, s.get(type(ann), p2.id), g2.id)
        tokens = {"g": seating.seat_of(s, g.id, ann.id).token, "o": seating.seat_of(s, o.id, ann.id).token,
                  "h": seating.seat_of(s, h.id, ann.id).token}
        ply = games.get(s, g.id).ply
    return dict(k=k, ann=ann.email, g=g.id, o=o.id, o2=o2.id, g2=g2.id, t=t.id, h=h.id, tokens=tokens, ply=ply,
                p1_seat=games_seat_number(g.id, p1.id))


def games_seat_number(gid: int, uid: int) -> int:
    with unit_of_work() as s:
        return seating.seat_of(s, gid, uid).seat + 1


def line_for(command: str, w: dict, column: str) -> tuple[str, str]:
    """(the line to send, the game of the seat address it goes to on a seat address)."""
    soon = date.today() + timedelta(days=3)
    on_seat = column == "seat address"
    g, o = w["g"], w["o"]
    lines = {
        "moves": ("wait", "g"), "HELP": ("HELP", "g"), "GAMES": ("GAMES", "g"),
        "STATUS": ("STATUS" if on_seat else f"STATUS {g}", "g"), "REGISTER": (f"REGISTER Ann B{w['k']}", "g"),
        "NEW": ("NEW mini players=2", "g"), "JOIN": (f"JOIN {w['o2']}", "g"),
        "START": (f"START {o}", "o"), "CANCEL": ("CANCEL" if on_seat else f"CANCEL {o}", "o"),
        "BOT": ("BOT" if on_seat else f"BOT {o}", "o"),
        "RESIGN": ("RESIGN" if on_seat else f"RESIGN {g}", "g"),
        "NEWADDRESS": ("NEWADDRESS" if on_seat else f"NEWADDRESS {g}", "g"),
        "REPLACE": (f"REPLACE {w['g2']} 2", "g"), "REPLACE … VOTE": (f"REPLACE {g} {w['p1_seat']} VOTE", "g"),
        "OBSERVE": (f"OBSERVE {w['g2']}", "g"), "UNOBSERVE": (f"UNOBSERVE {w['g2']}", "g"),
        "NOTIFY": ("NOTIFY digest", "g"), "STOP": ("STOP", "g"), "SEATS": ("SEATS OWN", "g"),
        "VACATION": (f"VACATION {soon} {soon + timedelta(days=1)}" if on_seat
                     else f"VACATION {g} {soon} {soon + timedelta(days=1)}", "g"),
        "UNDO": ("UNDO", "g"), "DISPUTE": (f"DISPUTE {w['ply']} the card was wrong", "g"),
        "SAY": ("SAY good luck", "g"), "NEXT": ("NEXT: wait", "g"), "IF": ("IF wait THEN wait", "g"),
        "LIST": ("LIST", "g"), "HISTORY": ("HISTORY" if on_seat else f"HISTORY {g}", "g"),
        "CARD": ("CARD spyrium mine", "g"), "CARDS": ("CARDS spyrium", "g"),
        "HINT": ("HINT" if on_seat else f"HINT {w['h']}", "h"),
        "LANGUAGE": ("LANGUAGE it", "g"),
        "AWAY": (f"AWAY {soon} {soon + timedelta(days=1)}", "g"),  # every game of Ann's
        "TIMEZONE": ("TIMEZONE Europe/Sofia", "g"),
        "ACCEPT": (f"ACCEPT {w['o2']}", "g"), "DECLINE": (f"DECLINE {w['o2']}", "g"),
        "REMOVE": (f"REMOVE {o} 2", "o"),
        # Ann created g, so she is its game master (the line on a seat address leaves the game out)
        "MASTER": (f"MASTER Pone {w['k']}" if on_seat else f"MASTER {g} Pone {w['k']}", "g"),
        "DEADLINE": ("DEADLINE +24h" if on_seat else f"DEADLINE {g} +24h", "g"),
        "PAUSE": ("PAUSE" if on_seat else f"PAUSE {g}", "g"),
        "RESUME": ("RESUME" if on_seat else f"RESUME {g}", "g"),  # send() pauses g first
        "EJECT": (f"EJECT {w['p1_seat']}" if on_seat else f"EJECT {g} {w['p1_seat']}", "g"),
        "POLICY": ("POLICY bot" if on_seat else f"POLICY {g} bot", "g"),
        "ABORT": ("ABORT" if on_seat else f"ABORT {g}", "g"),
        "TOURNAMENT": ("TOURNAMENT NEW mini players=2", "g"),  # a line that changes something: it makes one
        "TOURNAMENT LEAVE": (f"TOURNAMENT LEAVE {w['t']}", "g"),
    }
    return lines[command]


def send(command: str, column: str) -> str:
    """Send the command as the column's sender; the outcome, as the table words it."""
    w = world()
    if command == "RESUME":  # a game to resume
        with unit_of_work() as s:
            games.get(s, w["g"]).paused = True
    text, where = line_for(command, w, column)
    frm = w["ann"] if column.startswith(("seat", "command")) else f"zed{w['k']}@x.test"
    peer = FAR if column.endswith("not verified") else "127.0.0.1"
    to = f"game-{w[where]}.{w['tokens'][where]}@pbem.test" if column == "seat address" else CMD
    # counted and compared by id, not read: the database holds every cell's world before this one
    with unit_of_work() as s:
        asked = s.exec(select(func.count()).select_from(Confirmation)).one()
        sent = s.exec(select(func.max(Outbound.id))).one() or 0
    iid = store_inbound(mail(frm, to, text), to, frm, peer=peer)
    assert pipeline.process_inbound(iid) == "done"
    with unit_of_work() as s:
        row = s.get(Inbound, iid)
        new_asks = s.exec(select(func.count()).select_from(Confirmation)).one() - asked
        answers = list(s.exec(select(Outbound).where(Outbound.id > sent).order_by(Outbound.id)))
    body = "\n".join(o.body_text for o in answers if o.kind in ("reply", "confirm"))
    assert text not in body or "does not know" not in body, "an unknown sender's text was echoed"
    if new_asks:
        assert "Waiting for your confirmation" in body and (row.result or "").startswith("NOT APPLIED")
        return "asks"
    if "pbem does not know the address" in body:
        return "fixed answer"
    result = row.result or ""
    if result.startswith("OK"):
        return "runs"
    if result.startswith("ERROR") and re.search(r"is an account command|works on a game's address|acts only in "
                                                r"game|is not a command", body):
        return "refused"
    return f"unexpected: {result!r} / {body[-600:]!r}"


CELLS = [(command, column) for command in table() for column in COLUMNS]


@pytest.mark.parametrize("db", ["sqlite", "postgres"])
def test_every_cell_of_the_mail_table(db, tmp_path):
    from tests.conftest import installed, make_settings, pg_installed

    cells = CELLS if db == "sqlite" else CELLS[::3]  # PostgreSQL: a third of the cells, every command
    ctx = installed(make_settings(tmp_path)) if db == "sqlite" else pg_installed(tmp_path)
    wrong = []
    with ctx:
        expected = table()
        for command, column in cells:
            got = send(command, column)
            if got != expected[command][column]:
                wrong.append(f"{command} / {column}: the table says {expected[command][column]}, pbem {got}")
    assert not wrong, "\n".join(wrong)


def test_the_table_names_every_command():
    from pbem.mail.commands import ACCOUNT_COMMANDS

    named = set(table())
    assert {c for c in ACCOUNT_COMMANDS} <= named | {"IF"} and "moves" in named


def test_the_table_is_the_commands_declarations():
    """The table in the document is the one the commands' declarations give (pbem docs commands writes it)."""
    from pbem.mail.commands.docs import permission_table

    text = DOC.read_text()
    body = text.split("<!-- mail-table -->", 1)[1].split("<!-- /mail-table -->", 1)[0]
    assert body.strip() == permission_table(), "docs/SECURITY.md's mail table is out of date: run pbem docs commands"
