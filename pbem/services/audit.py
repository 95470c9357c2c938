"""Admin actions: each one is logged with its reason, posted in the game
thread and mailed to every seat of the game."""
from __future__ import annotations

from sqlmodel import Session, select

from pbem.store.models import AuditLog, Game, Post, User

from .errors import Forbidden, UserError


def require_admin(user: User | None) -> User:
    if user is None or not user.is_admin:
        raise Forbidden("only an admin can do this", code="not_admin")
    return user


def require_reason(reason: str | None) -> str:
    reason = (reason or "").strip()
    if not reason:
        raise UserError("an admin action needs a reason (it is shown to the players)",
                        example="reason: misread card, agreed by both players", code="no_reason")
    return reason[:2000]


def announce(s: Session, g: Game, by: User | None, action: str, reason: str, text: str, *,
             board: bool = True) -> AuditLog:
    from . import games, notify

    row = AuditLog(user_id=by.id if by else None, game_id=g.id, action=action, detail=f"{text} Reason: {reason}")
    s.add(row)
    s.add(Post(game_id=g.id, kind="admin", user_id=by.id if by else None, source="system",
               body=f"{text}\nReason: {reason}"))
    s.flush()
    if board and games.has_started(g):
        notify.queue_boards(s, g, text, paragraphs=[f"Reason: {reason}"], essential=True)
    else:
        notify.queue_notice(s, g, action.replace("_", " "), text, paragraphs=[f"Reason: {reason}"])
    return row


def log_for(s: Session, game_id: int) -> list[AuditLog]:
    return list(s.exec(select(AuditLog).where(AuditLog.game_id == game_id).order_by(AuditLog.id)))
