"""Game management through the services on a real database: deadlines and
the no-move policies (the clock is driven by passing ``now``), outages,
vacations, undo, disputes with rollback, pre-moves, seats, table talk."""
from datetime import date, timedelta

import pytest
from sqlmodel import select

from pbem import config
from pbem.engine import get_game
from pbem.engine.base import replay
from pbem.services.core import accounts, clocks, games, moves as moves_service, seating, visibility
from pbem.services.follow import messages
from pbem.services.lobby import seats, tables
from pbem.services.referee import disputes, undo
from pbem.services.turns import premoves, vacations
from pbem.services.upkeep import sweep
from pbem.services.core.errors import Forbidden, UserError
from pbem.store.db import unit_of_work
from pbem.store.models import AuditLog, Dispute, Move, Outbound, Post, PreMove, Snapshot, User, utcnow
from tests.mailtools import after_marker
from tests.manage.helpers import mails, no_outage_check, running, seat_row, user

GRACE = timedelta(minutes=60)


def _state(gid):
    with unit_of_work() as s:
        return games.state_at(s, games.get(s, gid))


def _play(gid, seat, text):
    with unit_of_work() as s:
        res = moves_service.submit_moves(s, gid, seat, [text], source="web")
    assert res.ok, res.error
    return res


def test_full_game_a_bot_stands_in_for_the_seat_that_misses_deadlines(any_cfg):
    no_outage_check(any_cfg)
    gid, uids = running(players=2, seed=11, options={"hand": "3"}, policy="bot", deadline_hours=48)
    engine = get_game("mini")
    reminders = 0
    for _ in range(60):
        state = _state(gid)
        if not engine.to_move(state):
            break
        if 0 in engine.to_move(state):
            _play(gid, 0, f"play {state.hands[0][0]}")  # Ann always answers at once
            continue
        bob = seat_row(gid, 1)
        assert bob.deadline_at is not None and bob.reminded == 0
        deadline = clocks.aware(bob.deadline_at)
        assert timedelta(hours=47) < deadline - utcnow() <= timedelta(hours=48)
        # 24 h before, 4 h before: one reminder each, never twice
        for at in (deadline - timedelta(hours=23), deadline - timedelta(hours=23), deadline - timedelta(hours=3)):
            reminders += sweep.run(at)["reminders"]
        # within the grace period nothing happens; after it the bot plays for Bob
        assert sweep.run(deadline + GRACE - timedelta(seconds=1))["bot_moves"] == 0
        done = sweep.run(deadline + GRACE + timedelta(seconds=1))
        assert done["late"] == 1 and done["bot_moves"] == 1
    with unit_of_work() as s:
        g = games.get(s, gid)
        assert g.status == "finished" and g.outcome is not None
        moves = list(s.exec(select(Move).where(Move.game_id == gid).order_by(Move.ply)))
        assert {m.source for m in moves if m.seat == 1} == {"bot"}
        assert {m.source for m in moves if m.seat == 0} == {"web"}
        bob_moves = sum(1 for m in moves if m.seat == 1)
        # the stored record replays to the final state
        assert engine.to_json(games.replay_state(s, g)) == g.state_json
    assert seat_row(gid, 1).missed == bob_moves
    assert reminders == 2 * bob_moves
    ann, bob = user(uids[0]).email, user(uids[1]).email
    # Bob got a reminder mail per stage; the table was told of each bot move
    assert len([m for m in mails(bob, "notice") if after_marker(m.body_text).startswith("Reminder: your move is due")]) == reminders
    assert any("A bot played for Player 1" in m.body_text for m in mails(ann, "board"))
    # the game-over board records who played, bot moves included
    final = mails(ann, "board")[-1].body_text
    assert "Who played:" in final and f"Seat 2: Player 1 (from ply 0); {bob_moves} move(s) played by a bot" in final


def test_reminders_and_the_wait_policy_tell_the_table_once(sqlite_cfg):
    no_outage_check(sqlite_cfg)
    gid, uids = running(players=2, policy="wait", deadline_hours=24)
    deadline = clocks.aware(seat_row(gid, 0).deadline_at)
    assert seat_row(gid, 1).deadline_at is None  # not to move: no clock
    assert sweep.run(deadline - timedelta(hours=3))["reminders"] == 1  # straight to the 4 h reminder
    assert sweep.run(deadline - timedelta(hours=2))["reminders"] == 0
    first = sweep.run(deadline + GRACE + timedelta(minutes=1))
    again = sweep.run(deadline + GRACE + timedelta(hours=5))
    assert (first["late"], first["bot_moves"], again["late"]) == (1, 0, 0)
    row = seat_row(gid, 0)
    assert row.missed == 1 and row.reminded == clocks.LATE
    with unit_of_work() as s:
        assert games.get(s, gid).ply == 0  # waits for the player or an admin
        notices = [p.body for p in s.exec(select(Post).where(Post.game_id == gid, Post.kind == "notice"))]
    assert any("missed the deadline" in b and "waits for Player 0" in b for b in notices)
    assert len([m for m in mails(user(uids[1]).email, "notice") if after_marker(m.body_text).startswith("Late: ")]) == 1
    # the late player moves at last: the clock passes on, fresh
    _play(gid, 0, "wait")
    assert seat_row(gid, 0).deadline_at is None and seat_row(gid, 1).deadline_at is not None


def test_abandon_policy_then_a_replacement_takes_over_with_the_history(sqlite_cfg):
    no_outage_check(sqlite_cfg)
    gid, uids = running(players=2, policy="abandon", deadline_hours=24, options={"hand": "4"})
    abandon_after = 2
    with unit_of_work() as s:
        g = games.get(s, gid)
        g.abandon_after = abandon_after
        s.add(g)
    d1 = clocks.aware(seat_row(gid, 0).deadline_at)
    r1 = sweep.run(d1 + GRACE + timedelta(seconds=1))
    assert (r1["late"], r1["abandoned"], r1["bot_moves"]) == (1, 0, 0)
    d2 = clocks.aware(seat_row(gid, 0).deadline_at)
    assert d2 > d1 + GRACE  # a new full deadline after the first miss
    r2 = sweep.run(d2 + GRACE + timedelta(seconds=1))
    assert (r2["late"], r2["abandoned"], r2["bot_moves"]) == (1, 1, 1)
    row = seat_row(gid, 0)
    assert row.abandoned and row.is_bot and row.open_for_replacement and row.missed == 2
    old_token = row.token
    with unit_of_work() as s:
        newbie = User(email="new@x.test", name="Newbie", confirmed=True)
        s.add(newbie)
        s.flush()
        g = games.get(s, gid)
        with pytest.raises(UserError, match="not open to a replacement; open seats: 1"):
            seats.take(s, newbie, g, 2)
        seats.take(s, newbie, g, 1)
        ply = g.ply
    row = seat_row(gid, 0)
    assert row.user_id is not None and not row.is_bot and not row.open_for_replacement and row.token != old_token
    with unit_of_work() as s:
        hist = [(h.seat, h.user_id, h.from_ply, h.until_ply) for h in seating.history(s, games.get(s, gid))]
        # Ann played seat 1 until it was abandoned at ply 0; the newcomer from the takeover on
        assert (0, uids[0], 0, 0) in hist and (0, row.user_id, ply, None) in hist and ply >= 1
        assert (1, uids[1], 0, None) in hist
        assert s.exec(select(AuditLog).where(AuditLog.action == "seat_abandoned")).first() is not None


def test_an_outage_extends_every_deadline_instead_of_forcing_moves(sqlite_cfg):
    cfg = sqlite_cfg.with_(sweep_gap_s=600)
    config.set_settings(cfg)
    gid, _ = running(players=2, policy="bot", deadline_hours=24)
    deadline = clocks.aware(seat_row(gid, 0).deadline_at)
    t0 = utcnow()
    assert sweep.run(t0)["extended_s"] == 0
    # the service is down for three days; the first sweep after it extends instead of forcing
    back = t0 + timedelta(days=3)
    done = sweep.run(back)
    assert done["extended_s"] == 3 * 86400 and done["bot_moves"] == 0 and done["late"] == 0
    assert clocks.aware(seat_row(gid, 0).deadline_at) == deadline + timedelta(days=3)
    # sweeps at the normal pace go on as usual; a clock jumping backwards changes nothing
    assert sweep.run(back + timedelta(seconds=60))["extended_s"] == 0
    assert sweep.run(back - timedelta(hours=5))["extended_s"] == 0
    with unit_of_work() as s:
        assert s.exec(select(AuditLog).where(AuditLog.action == "outage_extension")).first() is not None


def test_a_vacation_pauses_exactly_one_seats_clock(sqlite_cfg):
    no_outage_check(sqlite_cfg)
    # It's a Wonderful World drafts simultaneously: both seats are on the clock
    gid, uids = running(game="iaww", players=2, options={}, policy="wait", deadline_hours=48)
    d0, d1 = (clocks.aware(seat_row(gid, n).deadline_at) for n in (0, 1))
    today = utcnow().date()
    with unit_of_work() as s:
        g = games.get(s, gid)
        ann = s.get(User, uids[0])
        with pytest.raises(UserError, match="allows 14 vacation days"):
            vacations.declare(s, ann, g, today, today + timedelta(days=20), today=today)
        with pytest.raises(UserError, match="last day comes before"):
            vacations.declare(s, ann, g, today + timedelta(days=3), today, today=today)
    assert clocks.aware(seat_row(gid, 0).deadline_at) == d0  # refused: nothing changed
    with unit_of_work() as s:
        vacations.declare(s, s.get(User, uids[0]), games.get(s, gid), today + timedelta(days=1),
                          today + timedelta(days=3), today=today)
    assert clocks.aware(seat_row(gid, 0).deadline_at) == d0 + timedelta(days=3)
    assert clocks.aware(seat_row(gid, 1).deadline_at) == d1
    done = sweep.run(d1 + GRACE + timedelta(seconds=1))
    assert done["late"] == 1
    assert seat_row(gid, 1).missed == 1 and seat_row(gid, 0).missed == 0
    assert any("is away from" in m.body_text for m in mails(user(uids[1]).email, "notice"))


def test_undo_needs_the_others_and_hidden_information_blocks_it(sqlite_cfg):
    gid, uids = running(players=2, options={"hand": "3"})
    engine = get_game("mini")
    initial = _state(gid)
    _play(gid, 0, "wait")
    with unit_of_work() as s:
        ann, bob = s.get(User, uids[0]), s.get(User, uids[1])
        req, done = undo.request(s, ann, gid)
        assert not done and req.ply == 1
        with pytest.raises(Forbidden):
            undo.vote(s, ann, gid, True)  # not one's own request
        undo.vote(s, bob, gid, True)
    with unit_of_work() as s:
        g = games.get(s, gid)
        assert g.ply == 1 and games.state_at(s, g) == initial == games.replay_state(s, g)
        assert [m.undone for m in s.exec(select(Move).where(Move.game_id == gid))] == [True]
    res = _play(gid, 0, f"play {initial.hands[0][0]}")
    assert res.applied[0].ply == 2  # the ply keeps counting; the undone move stays in the log
    # a played card revealed information: it cannot be taken back
    with unit_of_work() as s:
        with pytest.raises(UserError, match="revealed hidden information"):
            undo.request(s, s.get(User, uids[0]), gid)
        g = games.get(s, gid)
        assert g.ply == 2 and engine.to_json(games.replay_state(s, g)) == g.state_json
    # a refusal leaves the move standing
    _play(gid, 1, "wait")
    with unit_of_work() as s:
        undo.request(s, s.get(User, uids[1]), gid)
        assert undo.vote(s, s.get(User, uids[0]), gid, False).status == "refused"
        assert games.get(s, gid).ply == 3


def test_a_rollback_announces_a_secret_pick_as_a_secret(sqlite_cfg):
    """It's a Wonderful World, three players: an admin rolls back seat 1's pick, still secret,
    and re-applies it. The announcement (thread, audit log, every seat's mail) says a secret
    choice was re-applied, not which; once the step is revealed the log shows it. Before, it
    named the pick to the whole table."""
    engine = get_game("iaww")
    gid, uids = running("iaww", 3, seed=3, options={})
    state = _state(gid)
    theirs = {engine.format_move(state, k, m) for k in (1, 2) for m in engine.legal_moves(state, k)}
    pick = next(t for t in (engine.format_move(state, 0, m) for m in engine.legal_moves(state, 0)) if t not in theirs)
    _play(gid, 0, pick)
    with unit_of_work() as s:
        d = disputes.open_dispute(s, s.get(User, uids[0]), gid, 1, "I clicked the wrong card")
        disputes.rollback(s, s.get(User, uids[3]), d.id, gid, 0, [(0, pick)], "asked by the player")
    with unit_of_work() as s:
        told = [p.body for p in s.exec(select(Post).where(Post.game_id == gid, Post.kind == "admin"))]
        told += [a.detail for a in s.exec(select(AuditLog).where(AuditLog.action == "rollback"))]
    told += [m.body_text for uid in uids[1:3] for m in mails(user(uid).email, "board") if "rolled game" in m.body_text]
    assert len(told) == 4 and all("seat 1: a secret choice" in t and pick not in t for t in told), told


def test_dispute_resolved_by_rollback_equals_a_clean_replay(any_cfg):
    config.set_settings(any_cfg.with_(snapshot_every=1))
    gid, uids = running(players=2, seed=3, options={"hand": "3"})
    engine = get_game("mini")
    h = _state(gid).hands
    played = [(0, f"play {h[0][0]}"), (1, f"play {h[1][0]}"), (0, f"play {h[0][1]}"), (1, "wait")]
    for seat, text in played:
        _play(gid, seat, text)
    with unit_of_work() as s:
        bob, admin = s.get(User, uids[1]), s.get(User, uids[2])
        d = disputes.open_dispute(s, bob, gid, 2, "I meant to wait, the web form sent the wrong card")
        with pytest.raises(Forbidden):
            disputes.set_pause(s, bob, d.id, True, "me")
        disputes.set_pause(s, admin, d.id, True, "looking at it")
        did = d.id
    with unit_of_work() as s:
        res = moves_service.submit_moves(s, gid, 0, [f"play {h[0][2]}"], source="web")
        assert res.error is not None and res.error.code == "paused" and games.get(s, gid).ply == 4
    corrected = [(1, "wait"), (0, f"play {h[0][1]}"), (1, f"play {h[1][0]}")]
    with unit_of_work() as s:
        admin = s.get(User, uids[2])
        with pytest.raises(UserError, match="corrected move 2"):
            disputes.rollback(s, admin, did, gid, 1, [(1, "wait"), (1, "wait")], "typo")
        with pytest.raises(UserError, match="needs a reason"):
            disputes.rollback(s, admin, did, gid, 1, corrected, "  ")
    with unit_of_work() as s:  # the refused attempts changed nothing
        assert games.get(s, gid).ply == 4 and not any(m.undone for m in s.exec(select(Move)))
    with unit_of_work() as s:
        applied = disputes.rollback(s, s.get(User, uids[2]), did, gid, 1, corrected, "agreed by both players")
        assert [a.ply for a in applied] == [5, 6, 7]
    with unit_of_work() as s:
        g = games.get(s, gid)
        clean = replay(engine, 2, g.seed, g.options, [played[0], *corrected])
        assert games.state_at(s, g) == clean == games.replay_state(s, g)
        assert games.state_at(s, g, 7) == clean and g.ply == 7 and not g.paused
        moves = list(s.exec(select(Move).where(Move.game_id == gid).order_by(Move.ply)))
        assert [(m.ply, m.undone) for m in moves] == [(1, False), (2, True), (3, True), (4, True),
                                                     (5, False), (6, False), (7, False)]
        assert {m.source for m in moves if m.ply > 4} == {"admin"}
        # snapshots of the undone line are gone; the new ones are of the corrected line
        snaps = {x.ply: x.state_json for x in s.exec(select(Snapshot).where(Snapshot.game_id == gid))}
        assert set(snaps) == {0, 1, 5, 6, 7} and snaps[7] == engine.to_json(clean)
        d = s.get(Dispute, did)
        assert d.status == "resolved" and "agreed by both players" in d.resolution and d.resolved_by == uids[2]
        assert s.exec(select(AuditLog).where(AuditLog.action == "rollback")).one().user_id == uids[2]
    for uid in uids[:2]:
        last = mails(user(uid).email, "board")[-1]
        assert "rolled game" in last.body_text and "Reason: agreed by both players" in last.body_text


def test_admin_forces_a_move_adjusts_a_seat_and_rejects_a_dispute(sqlite_cfg):
    gid, uids = running(players=2)
    with unit_of_work() as s:
        admin, ann = s.get(User, uids[2]), s.get(User, uids[0])
        with pytest.raises(UserError, match="plies 1 to 0"):
            disputes.open_dispute(s, ann, gid, 1, "nothing happened yet")
        a = disputes.force_move(s, admin, None, gid, 0, "wait", "Ann asked by phone")
        assert a.ply == 1
        with pytest.raises(UserError, match="not applied"):
            disputes.force_move(s, admin, None, gid, 0, "wait", "not her turn")
        d = disputes.open_dispute(s, ann, gid, 1, "I did not ask for that")
        disputes.reject(s, admin, d.id, "the phone call is on record")
        with pytest.raises(UserError, match="already rejected"):
            disputes.reject(s, admin, d.id, "again")
        disputes.adjust_seat(s, admin, None, gid, 1, "bot", "Bob is in hospital")
    assert seat_row(gid, 1).is_bot and seat_row(gid, 1).deadline_at is None
    with unit_of_work() as s:
        actions = [r.action for r in s.exec(select(AuditLog).where(AuditLog.game_id == gid).order_by(AuditLog.id))]
    assert actions == ["force_move", "dispute_rejected", "adjust_seat"]
    # every admin action was mailed to both players with its reason
    for uid in uids[:2]:
        bodies = " ".join(m.body_text for m in mails(user(uid).email))
        for reason in ("Ann asked by phone", "the phone call is on record", "Bob is in hospital"):
            assert reason in bodies
    # the bot seat is played by the sweep
    no_outage_check(sqlite_cfg)
    assert sweep.run(utcnow())["bot_moves"] == 1


def test_premoves_apply_when_the_seat_is_next_and_tell_the_player(sqlite_cfg):
    gid, uids = running(players=3, options={"hand": "3"})
    h = _state(gid).hands
    with unit_of_work() as s:
        g = games.get(s, gid)
        premoves.add(s, g, s.get(User, uids[1]), f": play {h[1][0]}")
        premoves.add(s, g, s.get(User, uids[2]), "play 0")  # not a card: will fail when due
        with pytest.raises(UserError, match="needs the move"):
            premoves.add(s, g, s.get(User, uids[1]), "  ")
    _play(gid, 0, "wait")
    with unit_of_work() as s:
        g = games.get(s, gid)
        moves = [(m.ply, m.seat, m.notation, m.source) for m in s.exec(select(Move).order_by(Move.ply))]
        assert moves == [(1, 0, "wait", "web"), (2, 1, f"play {h[1][0]}", "premove")]
        assert games.engine_for(g).to_move(games.state_at(s, g)) == {2}  # the failed one waits for a real move
    assert "was applied at ply 2" in mails(user(uids[1]).email, "notice")[-1].body_text
    told = mails(user(uids[2]).email, "notice")[-1].body_text
    assert "was not applied" in told and "play 0" in told


def test_a_players_pre_moves_end_when_they_leave_the_seat(sqlite_cfg):
    """Bob keeps a pre-move, resigns, and Dan takes the seat over: the pre-move is cancelled with
    Bob's time at the seat. Before, it was played for the bot or for Dan when the seat's turn
    came (or failed, and Dan was mailed Bob's private text)."""
    gid, uids = running(players=3, options={"hand": "3"})
    h = _state(gid).hands
    with unit_of_work() as s:
        g = games.get(s, gid)
        dan = accounts.register(s, "dan@x.test", "Dan", confirmed=True)[0]
        premoves.add(s, g, s.get(User, uids[1]), f"play {h[1][0]}")
        seats.resign(s, s.get(User, uids[1]), gid)
        seats.take(s, dan, games.get(s, gid), 2)
        dan_email = dan.email
    _play(gid, 0, "wait")
    with unit_of_work() as s:
        assert [m.source for m in s.exec(select(Move).where(Move.game_id == gid))] == ["web"]
        pm = s.exec(select(PreMove).where(PreMove.game_id == gid)).one()
        assert pm.status == "cancelled" and "changed hands" in pm.result
    assert not [m for m in mails(dan_email) if f"play {h[1][0]}" in m.body_text]


def test_say_observe_stop_and_digest(sqlite_cfg):
    gid, uids = running(players=3)
    with unit_of_work() as s:
        g = games.get(s, gid)
        ann, bob, cid, admin = (s.get(User, u) for u in uids)
        messages.say(s, ann, g, "good luck, everyone!")
        p = messages.say(s, ann, g, "Player 2: shall we gang up on Player 1?")
        assert p.to_seat == 2 and p.body == "shall we gang up on Player 1?"
        assert messages.observe(s, admin, g) and not messages.observe(s, admin, g)
        with pytest.raises(UserError, match="seats 1 to 3"):
            messages.say(s, ann, g, "7: hello")
        messages.stop(s, bob)
        messages.say(s, cid, g, "ok")
        # who sees what in the thread
        see = {u.name: [x.body for x in visibility.posts(s, g, visibility.viewer(s, g, u)) if x.kind == "post"] for u in (ann, bob, cid)}
    assert see["Player 1"] == ["good luck, everyone!", "ok"]
    assert "shall we gang up on Player 1?" in see["Player 2"] and "shall we gang up on Player 1?" in see["Player 0"]
    bob_mail = [m.body_text for m in mails(user(uids[1]).email, "notice")]
    assert any("good luck" in b for b in bob_mail) and not any("gang up" in b for b in bob_mail)
    assert not any("wrote to the table:\n\nok" in b or "\nok\n" in b for b in bob_mail)  # STOPped before
    _play(gid, 0, "wait")
    with unit_of_work() as s:
        from pbem.services.core import notify

        notify.queue_boards(s, games.get(s, gid), "Player 0 played: wait")
    observed = mails("admin@x.test", "board")
    assert observed and "Your hand" not in observed[-1].body_text  # the public view only
    with unit_of_work() as s:
        # a digest user gets no board per move, one mail a day instead
        cid = s.get(User, uids[2])
        cid.notify = "digest"
        s.add(cid)
    before = len(mails(user(uids[2]).email, "board"))
    _play(gid, 1, "wait")
    with unit_of_work() as s:
        from pbem.services.core import notify

        notify.queue_boards(s, games.get(s, gid), "Player 1 played: wait")
    assert len(mails(user(uids[2]).email, "board")) == before
    with unit_of_work() as s:
        assert messages.send_digests(s, utcnow()) == 1
        assert messages.send_digests(s, utcnow() + timedelta(hours=1)) == 0
    digest = mails(user(uids[2]).email, "notice")[-1]
    assert "daily digest" in digest.subject and "shall we gang up" in digest.body_text


def test_the_table_votes_a_seat_open(sqlite_cfg):
    gid, uids = running(players=3)
    with unit_of_work() as s:
        g = games.get(s, gid)
        ann, bob = s.get(User, uids[0]), s.get(User, uids[1])
        with pytest.raises(UserError, match="RESIGN"):
            seats.vote_open(s, ann, g, 1)
        assert seats.vote_open(s, ann, g, 3)[1] is False  # Bob has not voted yet
        assert seats.vote_open(s, bob, g, 3)[1] is True
        with pytest.raises(UserError, match="already open"):
            seats.vote_open(s, bob, g, 3)
    row = seat_row(gid, 2)
    assert row.open_for_replacement and row.is_bot
    # the former player is told, but never given the seat's new reply address (it is the replacement's)
    with unit_of_work() as s:
        gone = s.get(User, uids[2])
        told = s.exec(select(Outbound).where(Outbound.to_addr == gone.email, Outbound.kind == "notice")
                      .order_by(Outbound.id.desc())).first()
    assert "voted to open seat 3" in told.body_text
    assert row.token not in told.body_text + (told.body_html or "") + str(told.headers or "")


def test_deadlines_count_only_allowed_days_in_the_players_time_zone():
    from datetime import datetime, timezone

    fri = datetime(2026, 11, 27, 18, 0, tzinfo=timezone.utc)  # 19:00 in Berlin
    # every day counts: 48 h later
    assert clocks.deadline_from(fri, 48) == fri + timedelta(hours=48)
    # no weekends, in Berlin: 5 h of Friday, then Monday 00:00 local + 43 h = Tuesday 19:00 local
    assert clocks.deadline_from(fri, 48, day_mask="no-weekends", tz="Europe/Berlin") == \
        datetime(2026, 12, 1, 18, 0, tzinfo=timezone.utc)
    # the same in Tokyo, where it is already Saturday 03:00: Monday 00:00 + 48 h = Wednesday 00:00 local
    assert clocks.deadline_from(fri, 48, day_mask="no-weekends", tz="Asia/Tokyo") == \
        datetime(2026, 12, 1, 15, 0, tzinfo=timezone.utc)
    # a vacation day is skipped like a weekend; an unknown zone falls back to UTC
    assert clocks.deadline_from(fri, 48, paused_days={date(2026, 11, 28)}, tz="Mars/Olympus") == \
        fri + timedelta(hours=72)


def test_conditional_premoves_play_only_when_the_condition_holds(sqlite_cfg):
    gid, uids = running(players=3)
    with unit_of_work() as s:
        g = games.get(s, gid)
        premoves.add_conditional(s, g, s.get(User, uids[1]), "IF Player 0: WAIT THEN wait")
        premoves.add_conditional(s, g, s.get(User, uids[2]), "IF play 9 THEN wait")
        with pytest.raises(UserError, match="IF <the move before your turn> THEN"):
            premoves.add_conditional(s, g, s.get(User, uids[2]), "wait")
        with pytest.raises(UserError, match="neither a seat number nor a player"):
            premoves.add_conditional(s, g, s.get(User, uids[2]), "IF Zed: wait THEN wait")
    _play(gid, 0, "wait")
    with unit_of_work() as s:
        moves = [(m.seat, m.source) for m in s.exec(select(Move).order_by(Move.ply))]
        assert moves == [(0, "web"), (1, "premove")]
        assert {p.status for p in s.exec(select(premoves.PreMove))} == {"applied", "skipped"}
    told = mails(user(uids[2]).email, "notice")[-1].body_text
    assert "was not played" in told and "seat 2: wait" in told
    # the notice that it is their turn says by when, and what happens then, so the player can decide in time
    assert "Your move is due by " in told and "when a deadline passes" in " ".join(told.split())


def test_a_vacation_everywhere_skips_the_games_one_resigned_from(any_cfg):
    """Found by the permission table (docs/SECURITY.md): after resigning from one running game,
    the profile's vacation was refused in all ("you have no seat in game #N")."""
    gid, uids = running(players=2)
    with unit_of_work() as s:
        ann = s.get(User, uids[0])
        other = tables.create(s, ann, "mini", 2, {"hand": "3"}, seed=9)
        seats.resign(s, ann, gid)
    first = date.today() + timedelta(days=3)
    with unit_of_work() as s:
        got = vacations.away(s, s.get(User, uids[0]), first, first + timedelta(days=1), date.today())
    assert [g.id for g in got.applied] == [other.id] and got.refused == []
