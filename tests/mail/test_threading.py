"""Each game's mails to a player are one conversation: one subject per game,
References to the game's root id, the player's own mail as In-Reply-To of
its receipt, and what a mail is about on its first line. A reply's ply (to
tell a stale one) is read from the Message-ID it answers, and still from an
old-style subject tag."""
from sqlmodel import select

from pbem.store.addresses import parse_message_refs, thread_root_id
from pbem.services.core import games, notify
from pbem.store.db import unit_of_work
from pbem.store.models import Move, Seat
from tests.mailtools import CMD, after_marker, outbox, process, seat_addr, start_game


def hands(gid):
    with unit_of_work() as s:
        return games.state_at(s, games.get(s, gid)).hands


def moves(gid):
    with unit_of_work() as s:
        return [m.notation for m in s.exec(select(Move).where(Move.game_id == gid).order_by(Move.ply))]


def root(cfg, gid):
    return thread_root_id(cfg.domain, gid, cfg.secret_key)


def test_a_game_is_one_conversation(any_cfg):
    gid = start_game(2, hand=3)
    h = hands(gid)
    ann = seat_addr(gid, 0)
    start = len(outbox())
    board = [o for o in outbox("ann@x.test") if o.kind == "board"][-1]
    # Ann replies to her board: a move, and table talk; Bob asks to undo nothing yet, and is reminded
    process("ann@x.test", ann, f"play {h[0][0]}\nSAY good luck", subject=f"Re: {board.subject}",
            message_id="<ann.1@client.test>", headers={"In-Reply-To": board.message_id})
    process("p1@x.test", seat_addr(gid, 1), "UNDO")
    with unit_of_work() as s:
        seat = s.exec(select(Seat).where(Seat.game_id == gid, Seat.seat == 1)).one()
        from datetime import datetime, timedelta, timezone

        notify.queue_reminder(s, games.get(s, gid), seat, datetime.now(timezone.utc) + timedelta(hours=5))
    mails = [board, *outbox()[start:]]
    kinds = {(o.to_addr, o.kind, o.message_id.split(".")[1]) for o in mails}
    assert {("ann@x.test", "board", "board"), ("ann@x.test", "reply", "reply"), ("p1@x.test", "board", "board"),
            ("p1@x.test", "notice", "talk"), ("p1@x.test", "reply", "reply"),
            ("p1@x.test", "notice", "notice")} <= kinds
    subject = f"[pbem #{gid}] Mini (test game)"
    for o in mails:
        assert o.subject in (subject, "Re: " + subject), o.subject  # the same for every mail of the game
        refs = o.headers["References"].split()
        assert refs[0] == root(any_cfg, gid)  # the game's root, for every mail of the game
        assert parse_message_refs(refs[0], any_cfg.domain)[0].what == "game"
        if o.kind == "reply":  # the receipt answers the player's own mail
            assert o.headers["In-Reply-To"] == refs[-1] and len(refs) == 2
        else:
            assert o.headers["In-Reply-To"] == refs[0] and len(refs) == 1
    receipt = [o for o in mails if o.to_addr == "ann@x.test" and o.kind == "reply"][-1]
    assert receipt.headers["In-Reply-To"] == "<ann.1@client.test>"
    # what a mail is about is its first line under the marker (which comes first, so that nothing of ours
    # stands above it in a reply)
    first = {(o.to_addr, o.kind, o.message_id.split(".")[1]): after_marker(o.body_text).split("\n", 1)[0]
             for o in mails}
    assert first[("ann@x.test", "board", "board")].startswith("Your turn. Game #")
    assert first[("ann@x.test", "reply", "reply")] == "Results of your mail: 2 OK."
    assert first[("p1@x.test", "board", "board")] == f"Your turn. Ann played: play {h[0][0]}"
    assert first[("p1@x.test", "notice", "talk")] == "Ann wrote to the table."
    assert first[("p1@x.test", "reply", "reply")] == "Results of your mail: 1 error."
    reminder = [o for o in mails if o.to_addr == "p1@x.test" and o.kind == "notice" and o.message_id.startswith(
        "<pbem.notice.")][-1]
    assert after_marker(reminder.body_text).startswith("Reminder: your move is due ")
    assert receipt.body_html.index("Results of your mail: 2 OK.") < receipt.body_html.index("<h1")
    # another game is another conversation
    process("ann@x.test", CMD, "NEW mini players=1")
    other = [o for o in outbox("ann@x.test") if o.kind == "board"][-1]
    assert other.game_id != gid and other.headers["References"] == root(any_cfg, other.game_id) != root(any_cfg, gid)
    # mail without a game keeps its own subject and threads on the player's mail alone
    process("ann@x.test", CMD, "GAMES", subject="my games?", message_id="<ann.2@client.test>")
    plain = outbox("ann@x.test")[-1]
    assert plain.subject == "Re: my games?" and plain.headers["References"] == "<ann.2@client.test>"


def test_the_ply_of_a_reply_comes_from_the_mail_it_answers(sqlite_cfg):
    gid = start_game(2, hand=3)
    h = hands(gid)
    ann, bob = seat_addr(gid, 0), seat_addr(gid, 1)
    subject = f"Re: [pbem #{gid}] Mini (test game)"  # no ply in it any more
    board0 = [o for o in outbox("ann@x.test") if o.kind == "board"][-1]
    process("ann@x.test", ann, f"play {h[0][0]}", subject=subject, headers={"In-Reply-To": board0.message_id})
    bob_board = [o for o in outbox("p1@x.test") if o.kind == "board"][-1]
    assert "<pbem.board.%d.1." % gid in bob_board.message_id
    process("p1@x.test", bob, f"play {h[1][0]}", subject=subject, headers={
        "In-Reply-To": bob_board.message_id, "References": f"{bob_board.headers['References']} {bob_board.message_id}"})
    assert moves(gid) == [f"play {h[0][0]}", f"play {h[1][0]}"]
    # Ann answers her board of ply 0 again: Bob has played since and her position changed
    process("ann@x.test", ann, f"play {h[0][1]}", subject=subject, headers={"In-Reply-To": board0.message_id})
    r = outbox("ann@x.test")[-1].body_text
    assert "your mail answers the board at ply 0" in r and "send your move again" in r
    # the same, told by References alone (the nearest of ours is what she answers)
    process("ann@x.test", ann, f"play {h[0][1]}", subject=subject,
            headers={"References": f"{board0.headers['References']} {board0.message_id} <x.1@client.test>"})
    assert "answers the board at ply 0" in outbox("ann@x.test")[-1].body_text
    assert len(moves(gid)) == 2
    # a reply to her latest mail (the board after Bob's move, ply 2) is current
    latest = [o for o in outbox("ann@x.test") if o.kind in ("board", "reply")][-1]
    assert ".%d.2." % gid in latest.message_id
    process("ann@x.test", ann, f"play {h[0][1]}", subject=subject, headers={"In-Reply-To": latest.message_id})
    assert moves(gid)[-1] == f"play {h[0][1]}"


def test_an_old_style_subject_tag_still_tells_the_ply(sqlite_cfg):
    gid = start_game(2, hand=3)
    h = hands(gid)
    ann = seat_addr(gid, 0)
    process("ann@x.test", ann, f"play {h[0][0]}", subject=f"Re: [pbem #{gid} ply 0] Mini (test game): your turn")
    process("p1@x.test", seat_addr(gid, 1), f"play {h[1][0]}")
    # a mail of another game's thread says nothing about this game: the subject tag is read
    process("ann@x.test", ann, f"play {h[0][1]}", subject=f"Re: [pbem #{gid} ply 0] Mini (test game): your turn",
            headers={"In-Reply-To": f"<pbem.board.{gid + 1}.7.0123456789abcdef@pbem.test>"})
    assert "answers the board at ply 0" in outbox("ann@x.test")[-1].body_text
    assert len(moves(gid)) == 2
