"""A player's page: their games, results, ratings and reliability,
as anyone may see them. Names, finished games' results and scores are
public; a running game shows only its status and ply; what a game conceals
is never read here. Which of a player's games a viewer sees is decided in
one place, :func:`visible_games`."""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import or_
from sqlalchemy.orm import defer
from sqlmodel import Session, select

from pbem.i18n import _
from pbem.store.models import Game, Seat, SeatHistory, User

from ..core import access, games, paging, reliability, seating, visibility
from ..core.errors import NotFound
from . import ratings

SHOWN = 50  # games on a page, newest first


def visible_games(s: Session, viewer: User | None, user: User, *, page: int = 1,
                  per_page: int = SHOWN) -> paging.Page[Game]:
    """A page of the games ``user`` plays or played (a seat now, or one they held
    before a replacement) that ``viewer`` may see, newest first; never a
    cancelled one. The one door for a player's list of games: a game the
    viewer may not see is left out here."""
    had = select(SeatHistory.game_id).where(SeatHistory.user_id == user.id)
    q = (select(Game).where(Game.status != "cancelled",
                            or_(Game.id.in_(select(Seat.game_id).where(Seat.user_id == user.id)), Game.id.in_(had)),
                            access.visible_to(viewer))  # a private game only to those who may see it
         .options(defer(Game.state_json)).order_by(Game.id.desc()))
    return paging.fetch(s, q, page, per_page)


@dataclass
class GameLine:
    """One of the player's games on their page."""
    id: int
    title: str
    status: str  # the game's status word, in the reader's language
    state: str  # open | running | finished | aborted
    ply: int
    players: list[ratings.Player]
    seat: int | None  # the player's seat now (None: they left it, and someone took it over)
    left: bool  # resigned or abandoned
    place: int | None = None  # a finished game: the seat's place (1 = winner) and score
    score: int | None = None
    won: bool = False
    winners: list[str] = field(default_factory=list)
    rating_before: float | None = None  # a rated game: the shown rating before and after it
    rating_after: float | None = None


@dataclass
class Profile:
    user_id: int
    name: str
    since: datetime
    reliability: reliability.Figure
    ratings: list[ratings.Shown]
    games: list[GameLine]  # a page of them: never all of a long career at once
    page: int = 1
    more: bool = False  # a next page of games exists


def find(s: Session, user_id: int) -> User:
    """A person with a page (not a bot)."""
    user = s.get(User, user_id)
    if user is None or user.email.endswith("@" + seating.BOT_DOMAIN):
        raise NotFound(_("there is no player #%(id)d", id=user_id), code="no_player")
    return user


def profile(s: Session, viewer: User | None, user_id: int, page: int = 1) -> Profile:
    user = find(s, user_id)
    listed = visible_games(s, viewer, user, page=page)
    rows = listed.rows
    results = ratings.results_of(s, user.id, [g.id for g in rows])
    players = ratings.seated_in(s, rows)  # the seats and ratings of them all at once, not per game
    lines = []
    for g in rows:
        mine = next((x for x in seating.seats(s, g.id) if x.user_id == user.id), None)
        line = GameLine(g.id, games.engine_for(g).title, games.status_word(g.status), g.status,
                        visibility.public_ply(s, g),  # a secret step's counter stays at its start
                        players[g.id], mine.seat if mine else None,
                        bool(mine and (mine.resigned or mine.abandoned)) or mine is None)
        if g.status == "finished":  # the result of a finished game is public (visibility.ranking)
            places = visibility.ranking(g, [p.name for p in line.players])
            line.winners = [p.name for p in places if p.winner]
            at = next((p for p in places if mine is not None and p.seat == mine.seat), None)
            if at is not None:
                line.place, line.score, line.won = at.place, at.score, at.winner
        res = results.get(g.id)
        if res is not None and (res.mu_before, res.sigma_before) != (res.mu_after, res.sigma_after):
            line.rating_before = ratings.display(res.mu_before, res.sigma_before)
            line.rating_after = ratings.display(res.mu_after, res.sigma_after)
        lines.append(line)
    return Profile(user.id, user.name, user.created_at, reliability.of(user), ratings.of_user(s, user.id), lines,
                   listed.page, listed.more)
