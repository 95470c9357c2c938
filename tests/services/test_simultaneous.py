"""Simultaneous steps (a player decides from what they are shown), on SQLite
and PostgreSQL: replies of several players to one board are all applied (a
reply is stale only when what its seat decides from changed); a secret choice
may be replaced until the step is revealed, recorded so that a replay gives
the same state and nobody else learns that it changed; an order with nothing
left to decide needs no `done`; a move out of turn is offered as NEXT."""
from __future__ import annotations

import itertools

import pytest
from sqlmodel import select

from pbem.engine import IllegalMoveError, NotYourTurnError, get_game
from pbem.services.core import accounts, games, moves as moves_service, visibility
from pbem.services.lobby import tables
from pbem.services.turns import premoves
from pbem.services.core.errors import StaleMoveError
from pbem.store.db import unit_of_work
from pbem.store.models import Move, Post

IAWW = get_game("iaww")


def _users(n: int, tag: str = "s") -> list[int]:
    with unit_of_work() as s:
        return [accounts.register(s, f"{tag}{i}@x.test", f"{tag.upper()}{i}", confirmed=True)[0].id
                for i in range(n)]


def _game(uids: list[int], seed: int = 19) -> int:
    from pbem.store.models import User

    with unit_of_work() as s:
        users = [s.get(User, u) for u in uids]
        g = tables.create(s, users[0], "iaww", len(users), {}, seed=seed)
        for u in users[1:]:
            tables.join(s, u, g.id)
        return g.id


def _board(gid: int, seat: int) -> tuple[int, dict]:
    """What a seat was shown: the game's ply and its view."""
    with unit_of_work() as s:
        g = games.get(s, gid)
        return g.ply, games.view_for(s, g, seat)


def _submit(gid: int, seat: int, texts, ply: int | None = None, source: str = "mail") -> moves_service.SubmitResult:
    with unit_of_work() as s:
        return moves_service.submit_moves(s, gid, seat, list(texts), source=source, expected_ply=ply)


def _state(gid: int):
    with unit_of_work() as s:
        return games.state_at(s, games.get(s, gid))


def _first_round(gid: int, n: int) -> None:
    """Everybody picks the first card of the first hand: the board of pick 2 follows."""
    for seat in range(n):
        assert _submit(gid, seat, ["pick 1"]).ok


# ---------------------------------------------------------------- replies to one board


def test_five_players_answering_one_draft_board_are_applied_in_every_order(any_cfg):
    """All 120 orders in which 5 players' replies to the same draft board can arrive, each
    reply carrying the board's ply (as a mail's In-Reply-To or the web form does): every one is
    applied, none is refused as stale, and the picks revealed are the cards each board showed
    under the numbers written, whatever the order."""
    uids = _users(5)
    outcome = None
    for order in itertools.permutations(range(5)):
        gid = _game(uids)
        _first_round(gid, 5)
        shown = {seat: _board(gid, seat) for seat in range(5)}
        board_ply = shown[0][0]
        assert {ply for ply, _ in shown.values()} == {board_ply} and board_ply == 5
        # seat k writes "pick k+1": the card its own board shows under that number
        meant = {seat: v["you"]["hand"][seat]["id"] for seat, (_, v) in shown.items()}
        for seat in order:
            res = _submit(gid, seat, [f"pick {seat + 1}"], board_ply)
            assert res.ok, (order, seat, res.error)
            assert [a.notation for a in res.applied] == [f"pick {meant[seat]}"]
        state = _state(gid)
        assert state.step == 3 and all(p.draft[-1].split("#")[0] == meant[i] for i, p in enumerate(state.players))
        with unit_of_work() as s:
            again = IAWW.to_json(games.replay_state(s, games.get(s, gid)))
        assert again == IAWW.to_json(state)
        if outcome is None:
            outcome = again
        assert again == outcome, order  # the same step, whatever the order of the replies


def test_a_reply_is_stale_once_the_step_it_answers_is_revealed(any_cfg):
    uids = _users(3)
    gid = _game(uids)
    ply, _ = _board(gid, 0)
    assert _submit(gid, 1, ["pick 1"], ply).ok and _submit(gid, 2, ["pick 2"], ply).ok  # not stale
    assert _submit(gid, 0, ["pick 1"], ply).ok  # the last pick reveals the step
    res = _submit(gid, 1, ["pick 3"], ply)  # a reply to the board of pick 1, now pick 2
    assert isinstance(res.error, StaleMoveError) and not res.applied
    assert _state(gid).step == 2 and len(_state(gid).players[1].draft) == 1


# ---------------------------------------------------------------- changing a secret choice


def _rows(gid: int) -> list[Move]:
    with unit_of_work() as s:
        return list(s.exec(select(Move).where(Move.game_id == gid).order_by(Move.ply)))


def test_a_pick_may_be_changed_until_the_reveal_and_nobody_else_learns_it(any_cfg):
    uids = _users(3)
    gid = _game(uids)
    ply, view = _board(gid, 0)
    first, second = (view["you"]["hand"][i]["id"] for i in (0, 3))
    assert _submit(gid, 0, ["pick 1"], ply).ok
    assert _submit(gid, 1, ["pick 1"], ply).ok
    with unit_of_work() as s:
        g = games.get(s, gid)
        before = {k: [(p.id, p.body) for p in visibility.posts(s, g, visibility.Viewer(seat=k))] for k in (1, 2, None)}
        assert visibility.on_file(s, g, 0).finished
        assert "on file for you in this step: pick " + first in premoves.listing(s, g, 0)
    # Ann answers her first board again with another card: it replaces her pick
    res = _submit(gid, 0, ["pick 4"], ply)
    assert res.ok and res.replaced and res.replacing == [f"pick {first}"]
    assert [a.notation for a in res.applied] == [f"pick {second}"]
    rows = _rows(gid)
    assert [(m.ply, m.seat, m.undone, m.superseded_by) for m in rows] == [
        (1, 0, True, 3), (2, 1, False, None), (3, 0, False, None)]
    with unit_of_work() as s:
        g = games.get(s, gid)
        assert IAWW.to_json(games.replay_state(s, g)) == IAWW.to_json(games.state_at(s, g))
        assert games.state_at(s, g).players[0].pick.split("#")[0] == second
        for k in (1, 2, None):  # the others' log and thread: one secret choice of Ann's, as before
            anns = [m for m in visibility.moves(s, g, visibility.Viewer(seat=k)) if m.seat == 0]
            # numbered as the step's start, 0: its own ply, 3, would tell that a choice came before it
            assert [(m.ply, m.hidden, m.undone) for m in anns] == [(0, True, False)]
            posts = [(p.id, p.body) for p in visibility.posts(s, g, visibility.Viewer(seat=k))]
            assert posts == before[k]  # the same post, still saying only that a choice was made
        own = visibility.moves(s, g, visibility.Viewer(seat=0))
        # her own choices counted among her own alone (the game's ply 3 would count Bob's pick too)
        assert [(m.ply, m.notation, m.undone) for m in own] == [
            (1, f"pick {first}", True), (0, None, False), (1, f"pick {second}", False)]
        assert f"pick {second}" in premoves.listing(s, g, 0) and first not in premoves.listing(s, g, 0)
    # Cleo picks: the step is revealed with Ann's second choice; her first is never shown to anyone else
    assert _submit(gid, 2, ["pick 1"], ply).ok
    state = _state(gid)
    assert state.step == 2 and state.players[0].draft[0].split("#")[0] == second
    with unit_of_work() as s:
        g = games.get(s, gid)
        for k in (1, 2, None):
            shown = [m.notation for m in visibility.moves(s, g, visibility.Viewer(seat=k))]
            text = " ".join(n or "" for n in shown) + " ".join(
                p.body for p in visibility.posts(s, g, visibility.Viewer(seat=k)))
            # numbered 1 to 3 with no gap where the replaced pick was (the game's plies 2 to 4)
            assert f"pick {second}" in shown and f"pick {first}" not in text and [
                m.ply for m in visibility.moves(s, g, visibility.Viewer(seat=k))] == [1, 2, 3]
    # the step is revealed: a new pick is for the next step, never a change of the last
    res = _submit(gid, 0, ["pick 1"], ply)
    assert isinstance(res.error, StaleMoveError)


def test_a_finished_plan_is_replaced_only_by_a_finished_plan(any_cfg):
    """Planning: an order that decides every card finishes by itself (§6, no `done` needed);
    a new order replaces it whole and must finish too, else it is refused and nothing changes."""
    uids = _users(2)
    gid = _game(uids)
    while _state(gid).phase == "draft":  # two players: 10-card hands, 7 picks each
        for seat in (0, 1):
            assert _submit(gid, seat, ["pick 1"]).ok
    ply, view = _board(gid, 0)
    cards = [c["id"] for c in view["you"]["to_plan"]]
    assert len(cards) == 7 and _state(gid).phase == "plan"
    plan = [f"C {c}" for c in cards]
    res = _submit(gid, 0, plan, ply)
    assert res.ok and res.applied[-1].text == moves_service.CLOSED and res.applied[-1].notation == "done"
    assert 0 not in IAWW.to_move(_state(gid))
    with unit_of_work() as s:
        assert visibility.on_file(s, games.get(s, gid), 0).notations == tuple(
            [f"C {c}" for c in cards] + ["done"])
    snaps_before = _rows(gid)
    # half a plan cannot replace a finished one: refused, nothing changes
    res = _submit(gid, 0, ["C 1", "C 2"], ply)
    assert isinstance(res.error, IllegalMoveError) and "must finish the step too" in str(res.error)
    # its example ends it as it may be ended: done is not legal while five cards wait to be decided, auto is
    assert res.error.code == moves_service.UNFINISHED and not res.applied
    assert res.error.examples[0] == "C 1; C 2; auto" and "C 1; C 2; done" not in res.error.examples
    assert [(m.ply, m.undone) for m in _rows(gid)] == [(m.ply, m.undone) for m in snaps_before]
    # a whole new plan does: the first card recycled onto the empire card, the rest by auto
    res = _submit(gid, 0, ["R 1>E", "auto"], ply)
    assert res.ok and res.replaced
    state = _state(gid)
    assert len(state.players[0].sites) + len(state.players[0].built) == 6 and state.players[0].ecubes >= 1
    moves = [m for m in _rows(gid) if m.seat == 0 and m.ply > ply]
    with unit_of_work() as s:
        g = games.get(s, gid)
        assert IAWW.to_json(games.replay_state(s, g)) == IAWW.to_json(games.state_at(s, g))
        assert all(m.superseded_by == res.applied[0].ply for m in moves if m.undone)
        assert [m.notation for m in moves if not m.undone] == [f"R {cards[0]}>E", "auto"]
        # the new moves took over the first posts of the old ones; the others see one secret choice of the
        # seat's until the reveal, numbered as the step's start (how many parts it sent is secret too), the old
        # order's extra posts are its player's alone
        theirs = [p for p in visibility.posts(s, g, visibility.Viewer(seat=1)) if p.kind == "move" and p.seat == 0]
        assert [(p.ply, p.hidden) for p in theirs if p.hidden] == [(ply, True)]
        assert len([m for m in moves if not m.undone]) == 2
        mine = [p.body for p in visibility.posts(s, g, visibility.Viewer(seat=0)) if p.kind == "move" and p.seat == 0]
        assert sum(b.endswith("(replaced)") for b in mine) == len(cards) + 1 - 2
    assert _submit(gid, 1, ["auto"], ply).ok
    assert _state(gid).phase == "prod"


def test_posts_of_a_replaced_order_are_taken_over_not_added(any_cfg):
    uids = _users(2)
    gid = _game(uids)
    assert _submit(gid, 0, ["pick 2"]).ok
    with unit_of_work() as s:
        posts = list(s.exec(select(Post).where(Post.game_id == gid, Post.kind == "move")))
    assert len(posts) == 1
    assert _submit(gid, 0, ["pick 3"]).ok
    new = _rows(gid)[-1]
    with unit_of_work() as s:
        again = list(s.exec(select(Post).where(Post.game_id == gid, Post.kind == "move")))
    assert [p.id for p in again] == [posts[0].id] and again[0].ply == new.ply and again[0].body == new.notation


# ---------------------------------------------------------------- out of turn


def test_a_move_out_of_turn_is_offered_as_a_pre_move(any_cfg):
    gid = _game(_users(2))
    res = _submit(gid, 0, ["pick 1", "pick 2"])  # one pick per step: the second is for the next
    assert isinstance(res.error, NotYourTurnError) and res.failed_text == "pick 2" and not res.applied
    assert "NEXT: pick 2" in res.error.describe() and res.error.examples == ("NEXT: pick 2",)
    assert _rows(gid) == []  # the whole order (atomic) waits for a corrected mail


@pytest.mark.parametrize("players", [3])
def test_the_last_pick_of_a_step_is_never_a_replacement(any_cfg, players):
    """A seat still to decide adds to its order; only a finished one is replaced."""
    gid = _game(_users(players))
    assert _submit(gid, 0, ["pick 1"]).ok and _submit(gid, 1, ["pick 1"]).ok
    res = _submit(gid, 2, ["pick 1"])
    assert res.ok and not res.replaced and _state(gid).step == 2


def test_an_admins_corrected_move_list_is_applied_exactly_as_given(any_cfg):
    """disputes.rollback replays a record: no closing move is added, no order replaced (the
    explicit `done` of the list, after a plan that decided every card, is applied as such)."""
    from pbem.services.referee import disputes
    from pbem.store.models import User

    uids = _users(2)
    gid = _game(uids)
    while _state(gid).phase == "draft":
        for seat in (0, 1):
            assert _submit(gid, seat, ["pick 1"]).ok
    ply, view = _board(gid, 0)
    plan = [(0, f"C {c['id']}") for c in view["you"]["to_plan"]] + [(0, "done"), (1, "auto")]
    with unit_of_work() as s:
        admin = s.get(User, uids[0])
        admin.is_admin = True
        applied = disputes.rollback(s, admin, None, gid, ply, plan, "the plan as the player meant it")
    assert [a.notation for a in applied] == [t for _, t in plan]
    assert [m.notation for m in _rows(gid) if m.ply > ply] == [t for _, t in plan]
    assert _state(gid).phase == "prod"
