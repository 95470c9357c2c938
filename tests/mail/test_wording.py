"""What pbem's mails say: no unfilled template placeholder in any of them,
and a game that is over (finished or cancelled) is not worded as if a move
were still expected."""
import re

from tests.mailtools import CMD, outbox, process

PLACEHOLDER = re.compile(r"\{[A-Za-z_][A-Za-z0-9_]*\}")  # str.format's {addr}, {games}, ...


def placeholders(rows) -> list[str]:
    """'<subject>: {name}' for every unfilled placeholder in the mails."""
    out = []
    for o in rows:
        for part in (o.subject, o.body_text, o.body_html or "", *(o.headers or {}).values()):
            out += [f"{o.subject}: {m}" for m in PLACEHOLDER.findall(part)]
    return out


def test_the_help_for_a_mail_without_commands_is_filled_in(sqlite_cfg):
    process("ann@x.test", CMD, "REGISTER Ann")
    process("ann@x.test", CMD, "\n\n> REGISTER Ann\n> quoted only\n")
    reply = outbox("ann@x.test")[-1]
    assert "no commands or moves" in reply.body_text
    assert "Commands (one per line, to pbem@pbem.test)" in reply.body_text
    assert "create a game (" in reply.body_text and "spyrium" in reply.body_text
    assert placeholders([reply]) == []


def test_the_mails_that_end_a_game_do_not_ask_for_a_move(any_cfg):
    from pbem.services import games
    from pbem.store.db import unit_of_work
    from tests.mailtools import seat_addr, start_game

    gid = start_game(2, hand=1)
    with unit_of_work() as s:
        hands = games.state_at(s, games.get(s, gid)).hands
    process("ann@x.test", seat_addr(gid, 0), f"play {hands[0][0]}")
    before = len(outbox())
    process("p1@x.test", seat_addr(gid, 1), f"play {hands[1][0]}")  # the last move
    final = outbox()[before:]
    assert {(o.to_addr, o.kind) for o in final} == {("ann@x.test", "board"), ("p1@x.test", "reply")}
    a, b = hands[0][0], hands[1][0]
    won = "Ann wins" if a > b else "P1 wins" if b > a else "Ann and P1 share the victory"
    for o in final:
        for text in (o.body_text, o.body_html):
            assert "Reply to this mail" not in text and "with your move" not in text and "Your move" not in text
            assert f"Game #{gid} is over; it takes no more moves" in text
            assert f"/games/{gid}" in text and "NEW mini" in text
        assert f"Game #{gid} is over: {won}" in o.body_text and "Final scores:" in o.body_text
    # a reply to the final board is answered: over, and why
    process("ann@x.test", seat_addr(gid, 0), "wait")
    r = outbox("ann@x.test")[-1].body_text
    assert f"game #{gid} is over; no more moves are accepted" in r and "Reply to this mail" not in r
