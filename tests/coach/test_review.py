"""The post-game review (services/coach/review.py): a finished game of each title, played to its
end through the real services, gets its reviews computed, stored once, mailed to each player in
their language and shown on the game's page; an unfinished game shows none."""
from __future__ import annotations

import time

import pytest
from sqlmodel import select

from pbem import config
from pbem.services.coach import review
from pbem.services.core import accounts
from pbem.store.db import unit_of_work
from pbem.store.models import Outbound, Review
from tests.archive.play import finished_game

LANGS = ("ru", "bg", "it")


def _people(*langs: str) -> list:
    with unit_of_work() as s:
        return [accounts.register(s, f"p{i}-{code}@x.test", f"P{i}{code.upper()}", confirmed=True,
                                  language=code)[0] for i, code in enumerate(langs)]


@pytest.fixture
def small(sqlite_cfg):
    """A review bounded to a few decisions: the tests stay fast (the bound is a setting)."""
    cfg = sqlite_cfg.with_(review_decisions=6)
    config.set_settings(cfg)
    yield cfg


@pytest.mark.parametrize("name", ["spyrium", "squire", "iaww"])
def test_a_finished_game_is_reviewed_stored_once_and_mailed(small, name):
    players = _people("ru", "bg", "it") if name != "squire" else _people("ru", "bg")
    gid = finished_game(name, players, seed=3, talk=False)
    t = time.process_time()
    assert review.review_game(gid) == len(players)
    print(name, "review CPU", time.process_time() - t)
    assert review.review_game(gid) == 0  # computed once: a second run stores nothing, mails nothing
    with unit_of_work() as s:
        rows = list(s.exec(select(Review).where(Review.game_id == gid).order_by(Review.seat)))
        mails = list(s.exec(select(Outbound).where(Outbound.game_id == gid, Outbound.kind == "notice")))
    assert [r.seat for r in rows] == list(range(len(players)))
    total = sum(r.results["reviewed"] for r in rows)
    assert total == 6 and all(r.results["sampled"] for r in rows)
    assert {m.to_addr for m in mails} == {p.email for p in players} and len(mails) == len(players)
