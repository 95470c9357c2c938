"""Admin actions: each one is logged with its reason, posted in the game
thread and mailed to every seat of the game."""
from __future__ import annotations

from sqlmodel import Session, select

from pbem.i18n import N_, _, lazy_gettext
from pbem.store.models import AuditLog, Game, User

from . import games, lang, notices, notify
from .errors import Forbidden, UserError


def require_admin(user: User | None) -> User:
    if user is None or not user.is_admin:
        raise Forbidden(_("only an admin can do this"), code="not_admin")
    return user


def require_reason(reason: str | None) -> str:
    reason = (reason or "").strip()
    if not reason:
        raise UserError(_("an admin action needs a reason (it is shown to the players)"),
                        example="reason: misread card, agreed by both players", code="no_reason")
    return reason[:2000]


# what each admin action is called in a notice's first line
ACTION_WORDS = {"undo_accepted": N_("undo accepted"), "undo_refused": N_("undo refused"), "pause": N_("pause"),
                "resume": N_("resume"), "dispute_rejected": N_("dispute rejected"), "rollback": N_("rollback"),
                "force_move": N_("force move"), "adjust_seat": N_("adjust seat"), "seat_opened": N_("seat opened")}


def announce(s: Session, g: Game, by: User | None, action: str, reason: str, text, *,
             board: bool = True) -> AuditLog:
    """``text`` (a string, lazy string or callable: lang.text) is
    stored in English and mailed in each reader's language."""
    english = lang.english(text)
    row = AuditLog(user_id=by.id if by else None, game_id=g.id, action=action, detail=f"{english} Reason: {reason}")
    s.add(row)
    s.add(notices.post(game_id=g.id, kind="admin", user_id=by.id if by else None,
                       value=notices.Joined([text, lazy_gettext("Reason: %(reason)s", reason=reason)], "\n")))
    s.flush()
    because = lambda: _("Reason: %(reason)s", reason=reason)  # noqa: E731
    if board and games.has_started(g):
        notify.queue_boards(s, g, text, paragraphs=[because], essential=True)
    else:
        word = ACTION_WORDS.get(action)
        notify.queue_notice(s, g, (lambda: _(word)) if word else action.replace("_", " "), text,
                            paragraphs=[because])
    return row


def log_for(s: Session, game_id: int) -> list[AuditLog]:
    return list(s.exec(select(AuditLog).where(AuditLog.game_id == game_id).order_by(AuditLog.id)))
