"""Each kind of channel, delivered by pbem.push.deliver through Apprise to a
real local receiver (tests/push/receivers.py): the plugin's real request is
checked on arrival (method, path, headers, the JSON that carries the title,
the body and the link). Discord, Slack and Telegram go to their fixed https
hosts through the TLS-intercepting proxy, certificates verified: pbem asks
the proxy for the address it checked (``CONNECT <address>:443``), and
the TLS server name and the Host header keep the service's name."""
from __future__ import annotations

from datetime import timedelta

import pytest

from pbem.push import deliver
from tests.push import receivers as rx
from tests.push.helpers import T0, chan, channel, note, queue, user

TITLE = "pbem: Spyrium #12"
BODY = "Your turn in #12 (Spyrium), deadline in 47 hours."
LINK = "https://pbem.test/games/12"


def _one_message(receivers, kind):
    ann = user()
    cid, test_id = channel(ann, receivers.url(kind))
    assert deliver([test_id], now=T0) == {test_id: ("sent", 0.0)}
    receivers.clear()
    nid = queue(cid, BODY, T0 + timedelta(minutes=5), title=TITLE, link=LINK)
    assert deliver([nid], now=T0 + timedelta(minutes=5)) == {nid: ("sent", 0.0)}
    row = note(nid)
    assert row.status == "sent" and row.attempts == 0 and row.last_error is None
    assert chan(cid).last_ok_at is not None and chan(cid).failures == 0
    return receivers.received(kind)


def test_ntfy(push_cfg, receivers):
    [req] = _one_message(receivers, "ntfy")
    assert (req.method, req.path, req.tls) == ("POST", "/", False)
    assert req.headers["content-type"] == "application/json"
    assert req.json["topic"] == "pbem-topic"
    assert req.json["title"] == TITLE
    assert req.json["message"] == f"{BODY}\n{LINK}"


def test_json_webhook(push_cfg, receivers):
    [req] = _one_message(receivers, "json")
    assert (req.method, req.path) == ("POST", "/pbem-hook")
    assert req.headers["content-type"].startswith("application/json")
    data = req.json
    assert data["title"] == TITLE and data["message"] == f"{BODY}\n{LINK}" and data["type"] == "info"


def test_matrix_logs_in_joins_the_room_and_sends(push_cfg, receivers):
    reqs = _one_message(receivers, "matrix")
    calls = [(r.method, r.path) for r in reqs]
    v3 = "/_matrix/client/v3"
    assert calls[:3] == [("POST", f"{v3}/login"), ("POST", f"{v3}/join/#pbem-room:{rx.MATRIX_SERVER}"),
                         ("PUT", f"{v3}/rooms/!pbem-room:{rx.MATRIX_SERVER}/send/m.room.message/0")]
    assert calls[3:] == [("POST", f"{v3}/logout")]  # Apprise gives its token back
    login, join, send = reqs[:3]
    assert login.json["identifier"] == {"type": "m.id.user", "user": rx.MATRIX_USER}
    assert login.json["password"] == rx.MATRIX_PASSWORD and "authorization" not in login.headers
    assert join.headers["authorization"] == send.headers["authorization"] == f"Bearer {rx.MATRIX_TOKEN}"
    assert send.json["msgtype"] == "m.text"
    assert send.json["body"] == f"# {TITLE}\r\n{BODY}\n{LINK}"
    assert all(r.status == 200 for r in reqs)


def test_discord_over_tls(push_cfg, receivers):
    [req] = _one_message(receivers, "discord")
    assert req.tls and req.host == "discord.com" and req.tunnel == f"{rx.SERVICE_ADDRESSES['discord.com']}:443"
    assert (req.method, req.path) == ("POST", f"/api/webhooks/{rx.DISCORD_ID}/{rx.DISCORD_TOKEN}")
    assert req.headers["content-type"].startswith("application/json")
    assert req.json["content"] == f"{TITLE}\r\n{BODY}\n{LINK}"
    assert req.json["tts"] is False


def test_slack_over_tls(push_cfg, receivers):
    [req] = _one_message(receivers, "slack")
    assert req.tls and req.host == "hooks.slack.com" and req.tunnel == f"{rx.SERVICE_ADDRESSES['hooks.slack.com']}:443"
    assert (req.method, req.path) == ("POST", f"/services/{rx.SLACK_A}/{rx.SLACK_B}/{rx.SLACK_C}")
    assert req.headers["content-type"].startswith("application/json")
    assert req.json["channel"] == "#pbem"
    [attachment] = req.json["attachments"]
    assert attachment["title"] == TITLE and BODY in attachment["text"] and LINK in attachment["text"]


def test_telegram_over_tls(push_cfg, receivers):
    [req] = _one_message(receivers, "telegram")
    assert req.tls and req.host == "api.telegram.org"
    assert req.tunnel == f"{rx.SERVICE_ADDRESSES['api.telegram.org']}:443"
    assert (req.method, req.path) == ("POST", f"/bot{rx.TELEGRAM_TOKEN}/sendMessage")
    assert str(req.json["chat_id"]) == rx.TELEGRAM_CHAT
    assert req.json["text"] == f"<b>{TITLE}</b>\r\n{BODY}\n{LINK}"


@pytest.mark.parametrize("kind", ["json", "discord"])
def test_held_rows_go_out_as_one_message_in_the_owners_language(push_cfg, receivers, kind):
    """Notifications held back (quiet hours: next_attempt_at at their end)
    come out together: one message, a count for its title in the owner's
    language, each body with its link, a blank line between."""
    ivan = user("ivan@x.test", "Ivan", language="ru")
    cid, test_id = channel(ivan, receivers.url(kind))
    end = T0 + timedelta(hours=7)
    held = [queue(cid, f"Ход {n}", T0 + timedelta(minutes=n), title=f"#{n}", link=f"https://pbem.test/games/{n}",
                  at=end) for n in (1, 2, 3)]
    assert deliver(held, now=end - timedelta(seconds=1)) == {i: ("queued", 1.0) for i in held}
    assert deliver([test_id] + held, now=end) == {i: ("sent", 0.0) for i in [test_id] + held}
    [req] = receivers.messages(kind)
    body = "\n\n".join(f"Ход {n}\nhttps://pbem.test/games/{n}" for n in (1, 2, 3))
    title = "pbem: 4 уведомления"  # the test message too, in Russian
    assert req.text.startswith(title) and req.text.endswith(body)
