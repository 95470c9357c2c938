"""The post-game review (services/coach/review.py): a finished game of each title, played to its
end through the real services, gets its reviews computed, stored once, mailed to each player in
their language and shown on the game's page; an unfinished game shows none; a lost task is
handed again by the sweep; a real worker reviews a game once its last move commits."""
from __future__ import annotations

import re

import time
from datetime import timedelta

import pytest
from sqlalchemy import update
from sqlmodel import select

from pbem import config, i18n
from pbem.engine import get_game
from pbem.services.coach import review
from pbem.services.core import accounts, games, moves
from pbem.services.lobby import tables
from pbem.services.turns import bots
from pbem.store.db import unit_of_work
from pbem.store.models import Game, Outbound, Review, utcnow
from pbem.web import create_app
from tests.archive.play import finished_game
from tests.conftest import celery_worker
from tests.mailtools import wait_for
from tests.web.conftest import log_in

DECISIONS = 6  # the review's bound in these tests (PBEM_REVIEW_DECISIONS): a few decisions per game


def _people(*langs: str) -> list:
    with unit_of_work() as s:
        return [accounts.register(s, f"p{i}-{code}@x.test", f"P{i}{code.upper()}", confirmed=True,
                                  language=code)[0] for i, code in enumerate(langs)]


def _in(code: str, message: str, **values) -> str:
    """``message`` as the catalog of ``code`` writes it (it must really be translated)."""
    with i18n.use(code):
        said = i18n.gettext(message, **values)
    assert said != i18n.gettext(message, **values), f"{message!r} is not translated to {code}"
    return said


@pytest.fixture
def small(sqlite_cfg):
    """A review bounded to a few decisions: the tests stay fast (the bound is a setting)."""
    cfg = sqlite_cfg.with_(review_decisions=DECISIONS)
    config.set_settings(cfg)
    yield cfg


@pytest.mark.parametrize("name", ["spyrium", "squire", "iaww"])
def test_a_finished_game_is_reviewed_stored_once_mailed_and_shown(small, name):
    players = _people("ru", "bg", "it") if name != "squire" else _people("ru", "it")
    gid = finished_game(name, players, seed=3, talk=False)
    t = time.thread_time()
    assert review.review_game(gid) == len(players)
    spent = time.thread_time() - t
    assert review.review_game(gid) == 0  # computed once: a second run stores nothing and mails nothing
    with unit_of_work() as s:
        rows = list(s.exec(select(Review).where(Review.game_id == gid).order_by(Review.seat)))
        mails = list(s.exec(select(Outbound).where(Outbound.game_id == gid, Outbound.kind == "notice")))
    assert [r.seat for r in rows] == list(range(len(players)))
    assert all(r.level == "normal" and 0 < r.cpu_s <= spent + 0.5 for r in rows)
    # the bound: DECISIONS decisions in all, spread over the game, and each review says it is a sample
    assert sum(r.results["reviewed"] for r in rows) == DECISIONS
    assert all(r.results["sampled"] and r.results["reviewed"] >= 1 for r in rows)
    for r in rows:
        got = r.results
        assert got["matched"] == sum(1 for e in got["all"] if e["rank"] == 1)
        assert got["points_lost"] == pytest.approx(sum(max(0, e["gap"]) for e in got["all"]), abs=0.02)
        assert [e["gap"] for e in got["top"]] == sorted((e["gap"] for e in got["all"] if e["gap"] > 0),
                                                         reverse=True)[:review.TOP]
        plies = [e["ply"] for e in got["all"]]
        assert plies == sorted(plies)
    # one mail per player, in their own language, with the link to the review's page
    assert sorted(m.to_addr for m in mails) == sorted(p.email for p in players)
    for p in players:
        body = next(m for m in mails if m.to_addr == p.email).body_text
        assert _in(p.language, "Your review of game #%(id)d", id=gid) in body
        assert f"/games/{gid}/review" in body
    ru = next(m for m in mails if m.to_addr == players[0].email).body_text
    assert "проверк" in ru.lower() or "поиск" in ru.lower(), ru
    # the page: the reader's own review first, every player's (the game is over), positions as each saw them
    app = create_app(small)
    client = app.test_client()
    log_in(client, players[0].id)
    html = client.get(f"/games/{gid}/review").get_data(as_text=True)
    assert _in("ru", "Your review") in html
    for r in rows:
        assert f'id="review-seat-{r.seat + 1}"' in html
    listed = sum(len(r.results["top"]) for r in rows)
    assert html.count('class="decision"') == listed and html.count('<div class="board review-board"') == listed
    # each position drawn too, as that seat saw it, each drawing with ids of its own
    assert html.count('<div class="drawing review-drawing"') == listed
    ids = re.findall(r'<svg[^>]* aria-labelledby="([^" ]+)', html)
    assert len(ids) == listed and len(set(ids)) == listed, ids
    page = client.get(f"/games/{gid}").get_data(as_text=True)
    assert 'id="review"' in page and f"/games/{gid}/review" in page
    # a visitor reads them too, in English
    anon = app.test_client().get(f"/games/{gid}/review", headers={"Accept-Language": "en"}).get_data(as_text=True)
    assert "the search preferred" in anon or "found no decision" in anon
    assert "normal search" in anon and "can be wrong" in anon


def test_the_listed_position_is_the_seats_own_view(small):
    """The board of a listed decision is the engine's view of that seat at that ply (the text board
    the history slider shows the seat), never another seat's."""
    players = _people("en", "en", "en")
    gid = finished_game("spyrium", players, seed=5, talk=False)
    review.review_game(gid)
    with unit_of_work() as s:
        g = games.get(s, gid)
        engine = games.engine_for(g)
        for r in review.shown(s, g, review.visibility.viewer(s, g, None)):
            for d in r.listed:
                mine = engine.render_html(games.view_for(s, g, r.seat, d.entry["ply"]))
                assert d.board_html == mine


def test_an_unfinished_game_shows_nothing_of_reviews(small):
    players = _people("en", "it")
    with unit_of_work() as s:
        gid = tables.create(s, players[0], "spyrium", 2, seed=4).id
    with unit_of_work() as s:
        tables.join(s, players[1], gid)
    assert review.review_game(gid) == 0  # running: nothing computed, nothing stored
    app = create_app(small)
    client = app.test_client()
    log_in(client, players[0].id)
    html = client.get(f"/games/{gid}/review").get_data(as_text=True)
    assert 'id="no-review"' in html and 'class="decision"' not in html and "review-seat-" not in html
    assert 'id="review"' not in client.get(f"/games/{gid}").get_data(as_text=True)
    with unit_of_work() as s:
        g = games.get(s, gid)
        assert review.shown(s, g, review.visibility.viewer(s, g, players[0])) == []
        assert review.summaries(s, g, review.visibility.viewer(s, g, players[0])) == []
        assert not list(s.exec(select(Review)))


def test_a_bot_seat_gets_no_review_and_no_mail(small):
    ann, = _people("bg")
    with unit_of_work() as s:
        gid = tables.create(s, ann, "spyrium", 2, seed=6).id
    with unit_of_work() as s:
        bots.add_bot(s, ann, gid, "easy")
    engine = get_game("spyrium")
    for _ in range(200):
        bots.play_bots(gid)
        with unit_of_work() as s:
            g = games.get(s, gid)
            if g.status == "finished":
                break
            state = games.state_at(s, g)
            text = engine.format_move(state, 0, engine.legal_moves(state, 0)[-1])
            assert moves.submit_moves(s, gid, 0, [text], source="web").ok
    assert review.review_game(gid) == 1
    with unit_of_work() as s:
        assert [r.seat for r in s.exec(select(Review).where(Review.game_id == gid))] == [0]
        mails = list(s.exec(select(Outbound).where(Outbound.game_id == gid, Outbound.kind == "notice")))
    assert [m.to_addr for m in mails] == [ann.email]
    assert _in("bg", "Your review of game #%(id)d", id=gid) in mails[0].body_text


def test_the_sweep_hands_a_game_whose_review_is_missing_again(small):
    from pbem.tasks import run_sweep

    players = _people("it", "ru")
    gid = finished_game("iaww", players, seed=2, talk=False)
    with unit_of_work() as s:
        assert review.missing(s) == []  # just finished: its own task may still be running
        s.exec(update(Game).where(Game.id == gid).values(updated_at=utcnow() - timedelta(hours=1)))
    with unit_of_work() as s:
        assert review.missing(s) == [gid]
        assert review.missing(s, utcnow() + timedelta(days=review.RECENT_DAYS + 1)) == []  # too old: not any more
    assert run_sweep()["reviews"] == 1
    review.review_game(gid)
    with unit_of_work() as s:
        assert review.missing(s) == []
    assert run_sweep()["reviews"] == 0


def test_a_review_another_worker_is_computing_is_left_to_it(small):
    from pbem.store import leases

    players = _people("en", "ru")
    gid = finished_game("iaww", players, seed=4, talk=False)
    assert leases.acquire(f"review:{gid}", "another worker", 60)
    assert review.review_game(gid) == 0  # it is computing: nothing computed here, nothing stored
    with unit_of_work() as s:
        assert not list(s.exec(select(Review).where(Review.game_id == gid)))
    leases.release(f"review:{gid}", "another worker")
    assert review.review_game(gid) == 2


def test_the_review_of_an_end_taken_back_is_replaced(small):
    """A game whose end was taken back and that ended again (at another ply) is reviewed again:
    the review of the old end is shown nowhere and replaced."""
    players = _people("en", "it")
    gid = finished_game("iaww", players, seed=6, talk=False)
    assert review.review_game(gid) == 2
    with unit_of_work() as s:
        for r in s.exec(select(Review).where(Review.game_id == gid)):
            r.results = {**r.results, "game_ply": r.results["game_ply"] - 3, "matched": -1}  # an earlier end's
            s.add(r)
    with unit_of_work() as s:
        g = games.get(s, gid)
        assert review.shown(s, g, review.visibility.viewer(s, g, None)) == []
    assert review.review_game(gid) == 2
    with unit_of_work() as s:
        rows = list(s.exec(select(Review).where(Review.game_id == gid)))
        assert len(rows) == 2 and all(r.results["matched"] >= 0 for r in rows)
        g = games.get(s, gid)
        assert {r.results["game_ply"] for r in rows} == {g.ply}
        assert len(review.shown(s, g, review.visibility.viewer(s, g, None))) == 2


def test_the_review_task_goes_to_the_bots_queue(small):
    from pbem.celery_app import REVIEW_TASK, route

    config.set_settings(small.with_(bot_queue="bots"))
    assert route(REVIEW_TASK, (1,), {}, {}) == {"queue": "bots"}


def test_a_worker_reviews_the_game_once_its_last_move_commits(small, monkeypatch):
    monkeypatch.setattr(review, "DELAY_S", 0.5)  # a minute after the end in production: the test waits less
    players = _people("it", "en")
    with celery_worker(small):
        gid = finished_game("spyrium", players, seed=8, talk=False)
        wait_for(lambda: _mails(gid) == 2, timeout=60)
    with unit_of_work() as s:
        assert len(list(s.exec(select(Review).where(Review.game_id == gid)))) == 2


def _mails(gid: int) -> int:
    with unit_of_work() as s:
        return len(list(s.exec(select(Outbound).where(Outbound.game_id == gid, Outbound.kind == "notice"))))
