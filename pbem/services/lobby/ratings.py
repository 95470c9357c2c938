"""Ratings: each player's skill in each game, by the Plackett-Luce
model of openskill (a multiplayer rating: any number of players, ties
allowed), updated once, in the transaction that finishes the game.

Who is rated: the seats held by a person at the end (not a bot). A seat that
changed hands rates its final holder, who played it to the end; a seat a bot
holds at the end is not rated (its last player left it: that costs their
reliability, services/core/reliability.py). A game with fewer than two rated seats
(solo, or only one person left) rates nobody, nor does a practice game with
hints (the search may have chosen its moves); its result is recorded all the
same (``game_results``, the rating unchanged), so it, too, counts once.

Ranks are the places of the result every page shows (visibility.ranking):
the winners share place 1; the other seats follow the engine's ranking
(tie-breaks applied), seats of equal score sharing a place (1, 1, 3). The
model reads only their order.

A rating is shown as the conservative ``mu - 3 sigma`` (openskill's
``ordinal``): it starts at 0 and grows as the model becomes sure of a
player's skill."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from openskill.models import PlackettLuce
from sqlmodel import Session, select

from pbem.store.models import Game, GameResult, Rating, utcnow
from pbem.store.outbox import dialect_insert

from ..core import reliability, seating, visibility

MODEL = PlackettLuce()  # the library's defaults: mu 25, sigma 25/3, beta 25/6, tau 25/300


def ranks(g: Game) -> dict[int, int]:
    """Each seat's rank (1 = best) in a finished game: its place in the
    result every page shows (services/core/visibility.ranking)."""
    n = len((g.outcome or {}).get("scores") or [])
    return {p.seat: p.place for p in visibility.ranking(g, [""] * n)}


def display(mu: float, sigma: float) -> float:
    """The rating shown: the conservative estimate mu - 3 sigma, one decimal."""
    return round(MODEL.rating(mu=mu, sigma=sigma).ordinal(), 1) + 0.0  # never "-0.0"


DEFAULT = display(MODEL.mu, MODEL.sigma)  # a player's rating before their first rated game


def finished(s: Session, g: Game) -> list[GameResult]:
    """The game has just ended: rate its players, record the result, count
    each player's finished game (reliability). Called once by the
    transaction that sets status "finished" (events.GAME_FINISHED); a game that
    ends again after a take-back is not rated again (its results exist)."""
    if s.exec(select(GameResult.id).where(GameResult.game_id == g.id).limit(1)).first() is not None:
        return []
    seated = [x for x in seating.seats(s, g.id) if x.user_id is not None and not x.is_bot]
    for x in seated:
        reliability.count(s, x.user_id, "games_finished")
    out = g.outcome or {}
    scores = list(out.get("scores") or [])
    rank = ranks(g)
    rated = [x for x in seated if x.seat in rank]
    now = utcnow()
    ids = [x.user_id for x in rated]
    # a practice game (hints: the search helped) is recorded, never rated
    rates = len(rated) >= 2 and len(set(ids)) == len(rated) and not g.hints
    if rates:
        rows = _locked(s, g.game, ids, now)
    else:  # solo, one person left at the table, or a practice game: the result is recorded, no rating moves
        rows = {r.user_id: r for r in s.exec(select(Rating).where(Rating.game == g.game, Rating.user_id.in_(ids)))}
    before = [MODEL.rating(mu=rows[u].mu, sigma=rows[u].sigma) if u in rows else MODEL.rating() for u in ids]
    after = [new for (new,) in MODEL.rate([[r] for r in before], ranks=[rank[x.seat] for x in rated])] if rates \
        else before
    results = []
    for x, old, new in zip(rated, before, after):
        if new is not old:
            row = rows[x.user_id]
            row.mu, row.sigma, row.games, row.updated_at = new.mu, new.sigma, row.games + 1, now
            s.add(row)
        res = GameResult(game_id=g.id, seat=x.seat, user_id=x.user_id, rank=rank[x.seat], score=int(scores[x.seat]),
                         mu_before=old.mu, sigma_before=old.sigma, mu_after=new.mu, sigma_after=new.sigma,
                         created_at=now)
        s.add(res)
        results.append(res)
    s.flush()
    return results


def _locked(s: Session, game: str, user_ids: list[int], now) -> dict[int, Rating]:
    """The players' rating rows in ``game``, locked: a player's first rated game makes theirs, with the
    model's defaults. INSERT ... ON CONFLICT DO NOTHING: two games ending at once for the same new
    player (on PostgreSQL) make one row, and the second waits for it, then reads it."""
    conn = s.connection()
    conn.execute(
        dialect_insert(conn.dialect.name)(Rating.__table__).on_conflict_do_nothing(index_elements=["user_id", "game"]),
        [dict(user_id=u, game=game, mu=MODEL.mu, sigma=MODEL.sigma, games=0, updated_at=now) for u in user_ids])
    return {r.user_id: r for r in s.exec(select(Rating).where(Rating.game == game, Rating.user_id.in_(user_ids))
                                         .with_for_update().execution_options(populate_existing=True))}


@dataclass
class Shown:
    """A rating as pages and mails show it."""
    game: str
    rating: float  # display(): mu - 3 sigma
    games: int
    mu: float
    sigma: float


def of_user(s: Session, user_id: int) -> list[Shown]:
    """The user's ratings, one per game they were rated in, best first."""
    rows = s.exec(select(Rating).where(Rating.user_id == user_id))
    return sorted((Shown(r.game, display(r.mu, r.sigma), r.games, r.mu, r.sigma) for r in rows),
                  key=lambda x: (-x.rating, x.game))


def results_of(s: Session, user_id: int, game_ids: list[int]) -> dict[int, GameResult]:
    """The user's rated results among the games ``game_ids``: game id -> result."""
    if not game_ids:
        return {}
    return {r.game_id: r for r in s.exec(select(GameResult).where(
        GameResult.user_id == user_id, GameResult.game_id.in_(game_ids)))}


@dataclass(frozen=True)
class Player:
    """A seat as the lobby shows it: its player's name, profile and rating in the game."""
    seat: int
    name: str
    user_id: int | None  # None for a bot: no profile, no rating
    rating: float | None


def seated(s: Session, g: Game) -> list[Player]:
    """The game's seats with their players' ratings in this game (bots: none)."""
    return seated_in(s, [g])[g.id]


def seated_in(s: Session, gs: Sequence[Game]) -> dict[int, list[Player]]:
    """:func:`seated` for a page of games at once: their seats in one query, their players'
    ratings in another, however many games (a list page never asks once per row)."""
    seating.load_seats(s, [g.id for g in gs])
    rows = {g.id: seating.seats(s, g.id) for g in gs}
    users = {x.user_id for g in gs for x in rows[g.id] if not x.is_bot and x.user_id is not None}
    found = {(r.user_id, r.game): display(r.mu, r.sigma) for r in s.exec(select(Rating).where(
        Rating.user_id.in_(users), Rating.game.in_({g.game for g in gs})))} if users else {}
    out = {}
    for g in gs:
        names = seating.names(s, g.id)
        out[g.id] = [Player(x.seat, names[x.seat], None if x.is_bot else x.user_id,
                            None if x.is_bot or x.user_id is None else found.get((x.user_id, g.game), DEFAULT))
                     for x in rows[g.id]]
    return out
