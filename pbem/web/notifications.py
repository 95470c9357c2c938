"""Notifications on the web: a user's chat channels, their kinds
and mode, quiet hours and the digest hour on the profile page; a test
message; the table channel of a game on its Manage page
(pbem/web/manage.py); and the deadlines' calendar: the private feed
(services/follow/calendars.py) and one game's .ics file, whose addresses are their
own authority (no login: a calendar application has none), and a new
address for the feed. Every form goes through the services; a refusal says
why and changes nothing."""
from __future__ import annotations

from flask import Blueprint, Response, flash, redirect, request, url_for

from pbem.i18n import _
from pbem.services.core import calendar_links
from pbem.services.follow import calendars, channels
from pbem.services.core.errors import UserError
from pbem.store.db import unit_of_work

from . import visitor, wording

bp = Blueprint("notifications", __name__)

HOURS = list(range(24))


def profile_context(s, me) -> dict:
    """What the profile's Notifications card shows."""
    rows = channels.mine(s, me)
    return {"channels": [{"n": i, "row": r, "kind": channels.kind_name(r.kind), "address": channels.masked(r.url),
                          "status": channels.status(r), "failing": bool(r.failures or r.disabled_at)}
                         for i, r in enumerate(rows, 1)],
            "event_words": [(e, channels.event_word(e)) for e in channels.EVENTS], "hours": HOURS,
            "max_channels": channels.MAX_CHANNELS, "example_url": channels.EXAMPLE_URL,
            "calendar": {"https": calendars.feed_url(me), "webcal": calendars.webcal_url(me)}}


def _back():
    return redirect(url_for("auth.profile") + "#notifications", 303)


def _act(do) -> object:
    """Run ``do(s, me)`` in one transaction; its message flashed, or the refusal (nothing changed)."""
    try:
        with unit_of_work() as s:
            me = visitor.user(s)
            said = do(s, me)
    except UserError as e:
        flash(wording.describe(e), "error")
        return _back()
    flash(said, "ok")
    return _back()


@bp.post("/profile/channels")
@visitor.login_required
def add():
    url, label = request.form.get("url", ""), request.form.get("label", "")

    def do(s, me):
        row = channels.add(s, me, url, label)
        return _("Channel added (%(kind)s). A test message is on its way there; if it does not arrive, check the "
                 "address.", kind=channels.kind_name(row.kind))
    return _act(do)


@bp.post("/profile/channels/<int:n>")
@visitor.login_required
def update(n: int):
    chosen = set(request.form.getlist("events"))
    mode = request.form.get("mode", "instant")

    def do(s, me):
        row = channels.numbered(s, me, n)
        on = [e for e in channels.EVENTS if e in chosen]
        off = [e for e in channels.EVENTS if e not in chosen]
        if on:
            channels.set_events(s, me, n, True, on)
        if off:
            channels.set_events(s, me, n, False, off)
        channels.set_mode(s, me, n, mode)
        return _("Channel %(n)d saved: %(events)s.", n=n, events=", ".join(channels.event_word(e) for e in row.events)
                 or _("nothing (every kind is off)"))
    return _act(do)


@bp.post("/profile/channels/<int:n>/test")
@visitor.login_required
def test(n: int):
    return _act(lambda s, me: (channels.test(s, me, n), _("A test message is on its way to channel %(n)d.", n=n))[1])


@bp.post("/profile/channels/<int:n>/on")
@visitor.login_required
def switch_on(n: int):
    return _act(lambda s, me: (channels.enable(s, me, n),
                               _("Channel %(n)d is on again; a test message is on its way.", n=n))[1])


@bp.post("/profile/channels/<int:n>/remove")
@visitor.login_required
def remove(n: int):
    return _act(lambda s, me: (channels.remove(s, me, n), _("Channel %(n)d removed.", n=n))[1])


@bp.post("/profile/notification-hours")
@visitor.login_required
def hours():
    start, end, digest = (request.form.get(k, "") for k in ("quiet_from", "quiet_until", "digest_hour"))

    def do(s, me):
        if (start == "") != (end == ""):
            raise UserError(_("quiet hours need both hours, from and to (or neither)"), example="NOTIFY QUIET 22-07",
                            code="bad_quiet")
        if start == "":
            channels.set_quiet(s, me, None, None)
        else:
            channels.set_quiet(s, me, channels.parse_hour(start, "NOTIFY QUIET 22-07"),
                               channels.parse_hour(end, "NOTIFY QUIET 22-07"))
        channels.set_digest_hour(s, me, channels.parse_hour(digest, "NOTIFY HOUR 8") if digest != "" else None)
        return _("Notification hours saved.")
    return _act(do)


# ---------------------------------------------------------------- the calendar


def _ics(body: bytes, filename: str, disposition: str) -> Response:
    resp = Response(body, mimetype="text/calendar")
    resp.headers["Content-Disposition"] = f'{disposition}; filename="{filename}"'
    resp.headers["Cache-Control"] = "private, no-store"  # a deadline moves; the address is a secret
    resp.headers["Referrer-Policy"] = "no-referrer"
    resp.headers["X-Robots-Tag"] = "noindex"
    return resp


def _unknown_calendar() -> Response:
    text = _("This calendar address is not known, or no longer works: a new one was made for its owner. "
             "Your profile page shows your current address (or send NOTIFY CALENDAR by mail).")
    return Response(text + "\n", status=404, mimetype="text/plain", headers={"Cache-Control": "no-store"})


@bp.get("/calendar/<key>.ics")
def calendar_feed(key: str):
    """The private feed: every current deadline of its owner (a calendar application reads it again)."""
    with unit_of_work() as s:
        visitor.user(s)
        user = calendars.user_for_key(s, key)
        if user is None:
            return _unknown_calendar()
        body = calendars.feed(s, user)
    return _ics(body, "pbem-deadlines.ics", "inline")


@bp.get("/calendar/game/<ics>.ics")
def calendar_game(ics: str):
    """One game's deadline, the link of the "your turn" mail: opened, the calendar adds the event."""
    with unit_of_work() as s:
        visitor.user(s)
        found = calendar_links.check_game_token(s, ics)
        if found is None:
            return _unknown_calendar()
        user, g = found
        body = calendars.game_file(s, user, g)
    return _ics(body, f"pbem-game-{g.id}.ics", "attachment")


@bp.post("/profile/calendar")
@visitor.login_required
def calendar_renew():
    def do(s, me):
        calendars.renew(s, me)
        return _("Your calendar has a new address; the old one, and the calendar links in earlier mails, no "
                 "longer work. Subscribe to the new one below.")
    return _act(do)
