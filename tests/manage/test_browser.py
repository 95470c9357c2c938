"""What a person clicks, in headless Chromium against a live server (CSRF on):
a player asks for an undo and opens a dispute; the admin rejects it in the
disputes console."""
import threading

import pytest
from sqlmodel import select
from werkzeug.serving import make_server

from pbem.services.core import moves
from pbem.store.db import unit_of_work
from pbem.store.models import AuditLog, Dispute, UndoRequest
from pbem.web import create_app
from tests.browser import chromium_browser
from tests.conftest import free_port
from tests.manage.helpers import mails, running, user
from tests.web.conftest import session_secret



@pytest.fixture
def live(sqlite_cfg):
    app = create_app(sqlite_cfg)
    port = free_port()
    server = make_server("127.0.0.1", port, app, threaded=True)
    t = threading.Thread(target=server.serve_forever, daemon=True)
    t.start()
    yield app, f"http://127.0.0.1:{port}"
    server.shutdown()
    t.join(10)


def _cookie(app, base, uid):
    """The signed Flask session cookie of a logged-in user (what login sets)."""
    value = app.session_interface.get_signing_serializer(app).dumps({"sid": session_secret(uid)})
    return {"name": app.config.get("SESSION_COOKIE_NAME", "session"), "value": value, "url": base}


@pytest.mark.browser
def test_undo_and_dispute_clicked_in_a_real_browser(live):
    app, base = live
    gid, uids = running(players=2)
    with unit_of_work() as s:
        assert moves.submit_moves(s, gid, 0, ["wait"], source="web").ok
    with chromium_browser() as browser:
        ann = browser.new_context()
        ann.add_cookies([_cookie(app, base, uids[0])])
        page = ann.new_page()
        page.goto(f"{base}/games/{gid}/manage")
        page.get_by_role("button", name="Ask to undo my last move").click()
        page.wait_for_selector("text=asked the others to agree to take back ply 1")
        page.get_by_label("Ply").fill("1")
        page.get_by_label("What is wrong").fill("<i>Bob</i> saw my screen")
        page.get_by_role("button", name="Dispute").click()
        page.wait_for_selector("text=dispute #1 about ply 1 is open")

        admin = browser.new_context()
        admin.add_cookies([_cookie(app, base, uids[2])])
        page = admin.new_page()
        page.goto(f"{base}/admin/disputes")
        assert "<i>Bob</i> saw my screen" in page.inner_text("#open")  # escaped, shown as text
        page.get_by_role("link", name="#1").click()
        form = page.locator("form", has=page.get_by_role("button", name="Reject the dispute"))
        form.locator("input[name=reason]").fill("nothing hidden was visible")
        form.get_by_role("button", name="Reject the dispute").click()
        page.wait_for_selector("#resolution")
        assert "nothing hidden was visible" in page.inner_text("#resolution")
    with unit_of_work() as s:
        assert s.get(Dispute, 1).status == "rejected"
        assert s.exec(select(UndoRequest)).one().status == "open"
        assert s.exec(select(AuditLog).where(AuditLog.action == "dispute_rejected")).one().user_id == uids[2]
    assert "nothing hidden was visible" in mails(user(uids[1]).email)[-1].body_text
