"""The review's page in a real Chromium, at a desktop's and a phone's width: no serious
accessibility finding (axe), no sideways scroll, its positions opened."""
from __future__ import annotations

import pytest

from pbem import config
from pbem.services.coach import review
from tests.archive.play import finished_game, people
from tests.browser import axe, sideways
from tests.web.gamepage import SIZES, page_for, site  # noqa: F401 (site)


@pytest.mark.parametrize("size", SIZES)
def test_the_review_page_reads_well(site, size):
    base, browser = site
    config.set_settings(config.settings().with_(review_decisions=8))
    ann, bob = people("Ann", "Bob")
    gid = finished_game("squire", [ann, bob], seed=9, talk=False)
    assert review.review_game(gid) == 2
    page = page_for(browser, base, ann.id, SIZES[size])
    assert page.goto(f"{base}/games/{gid}/review").status == 200
    assert page.locator("section[id^=review-seat-] h2").first.inner_text() == "Your review"  # the reader's own first
    page.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
    problems = [str(v) for v in axe(page)]
    if sideways(page):
        problems.append(f"scrolls {sideways(page)} px sideways")
    page.goto(f"{base}/games/{gid}")
    assert page.locator("#review").count() == 1
    problems += [f"game page: {v}" for v in axe(page)]
    page.context.close()
    assert problems == [], "\n".join(problems)
