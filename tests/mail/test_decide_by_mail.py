"""What a board mail carries besides the board: what the others did
since the reader's last move, in words; the reader's deadline in their own time
zone and the no-move policy; the whole game in the final mail; and the mail
commands HISTORY, CARD and CARDS. Through the real pipeline."""
from __future__ import annotations

import pytest
from sqlmodel import select

from pbem.engine import get_game
from pbem.services.core import accounts, games, notify, seating, visibility
from pbem.services.lobby import tables
from pbem.store.db import unit_of_work
from pbem.store.models import Game, Seat, User
from tests.mailtools import CMD, after_marker, outbox, process, seat_addr


def _table(game: str, players: int, *, policy: str = "wait", seed: int = 11, tz: str = "Europe/Moscow") -> int:
    names = ["Ann", "Bob", "Cleo", "Dai", "Eve"][:players]
    with unit_of_work() as s:
        users = [accounts.register(s, f"{n.lower()}@x.test", n, confirmed=True)[0] for n in names]
        users[0].timezone = tz
        s.add(users[0])
        g = tables.create(s, users[0], game, players, {}, seed=seed, policy=policy)
        for u in users[1:]:
            tables.join(s, u, g.id)
        return g.id


def _seat_of(gid: int, email: str) -> int:
    with unit_of_work() as s:
        uid = s.exec(select(User.id).where(User.email == email)).one()
        return s.exec(select(Seat.seat).where(Seat.game_id == gid, Seat.user_id == uid)).one()


def _play_by_mail(gid: int, seat: int, email: str, move: str | None = None) -> str:
    """The seat plays ``move`` (else its first legal move) by mail; returns the notation."""
    with unit_of_work() as s:
        g = games.get(s, gid)
        engine, state = games.engine_for(g), games.state_at(s, g)
        move = move or engine.format_move(state, seat, engine.legal_moves(state, seat)[0])
    _, status = process(email, seat_addr(gid, seat), move)
    assert status == "done"
    return move


def _board(email: str):
    return [o for o in outbox(email) if o.kind == "board"][-1]


def _told(text: str) -> list[str]:
    """The lines under "Since your last move:" in a text mail, each unwrapped (the mail wraps at 78)."""
    block = text.split("Since your last move:\n", 1)[1].split("\n\n", 1)[0]
    out: list[str] = []
    for line in block.splitlines():
        if line.startswith("- "):
            out.append(line[2:])
        else:
            out[-1] += " " + line.strip()
    return out


def _flat(text: str) -> str:
    return " ".join(text.split())


def test_the_board_says_in_words_what_the_others_did_since_your_last_move(sqlite_cfg):
    gid = _table("spyrium", 3)
    emails = {_seat_of(gid, e): e for e in ("ann@x.test", "bob@x.test", "cleo@x.test")}
    engine = get_game("spyrium")
    # one round of turns: each seat's mail after the others moved tells it their moves in words
    expected = []
    for _ in range(4):
        with unit_of_work() as s:
            g = games.get(s, gid)
            state = games.state_at(s, g)
            seat = sorted(engine.to_move(state))[0]
            move = engine.legal_moves(state, seat)[0]
            words = engine.describe_move(state, seat, move)
            names = seating.names(s, gid)
        _play_by_mail(gid, seat, emails[seat], engine.format_move(state, seat, move))
        expected.append((seat, f"{names[seat]} {words}"))
    with unit_of_work() as s:
        g = games.get(s, gid)
        state = games.state_at(s, g)
        nxt = sorted(engine.to_move(state))[0]
    board = _board(emails[nxt]).body_text
    assert "Since your last move:" in board
    told = _told(board)
    assert all(len(x) <= 80 for x in board.split("Since your last move:", 1)[1].split("\n\n", 1)[0].splitlines())
    # exactly the others' moves after the reader's own last move, in order, in words
    own_last = max((i for i, (seat, _) in enumerate(expected) if seat == nxt), default=-1)
    want = [line for seat, line in expected[own_last + 1:] if seat != nxt]
    assert told == want
    assert not any("Player " in x for x in told)  # names, never "Player 2"
    html = _board(emails[nxt]).body_html
    assert "Since your last move:" in html and want[-1].split(" ")[0] in html


def test_every_board_has_the_deadline_in_the_readers_zone_and_the_policy(sqlite_cfg):
    gid = _table("spyrium", 2, policy="bot")
    ann = _seat_of(gid, "ann@x.test")
    bob = 1 - ann
    emails = {ann: "ann@x.test", bob: "bob@x.test"}
    with unit_of_work() as s:
        first = sorted(games.engine_for(games.get(s, gid)).to_move(games.state_at(s, games.get(s, gid))))[0]
    _play_by_mail(gid, first, emails[first])
    with unit_of_work() as s:
        g = games.get(s, gid)
        to_move = games.engine_for(g).to_move(games.state_at(s, g))
        row = next(x for x in seating.seats(s, gid) if x.seat in to_move)
        due = row.deadline_at
    reader = emails[row.seat]
    text = _board(reader).body_text if reader != emails[first] else \
        [o for o in outbox(reader) if o.kind == "reply"][-1].body_text
    text = _flat(text)
    assert "Each move has 48 hours; when a deadline passes, a bot plays that move for the late player" in text
    from pbem.services.core.clocks import aware, zone
    tz = "Europe/Moscow" if reader == "ann@x.test" else "UTC"
    local = aware(due).astimezone(zone(tz))
    assert f"Your move is due by {local:%a %d %b %Y %H:%M} ({tz})." in text
    # the other player's mail has the rule, not somebody else's deadline
    other = emails[1 - row.seat]
    mails = [o for o in outbox(other) if o.kind in ("board", "reply")]
    assert "Each move has 48 hours" in mails[-1].body_text and "Your move is due" not in mails[-1].body_text


def test_a_paused_game_says_no_clock_runs(sqlite_cfg):
    gid = _table("squire", 2)
    with unit_of_work() as s:
        g = games.get(s, gid)
        g.paused = True
        s.add(g)
        assert notify.deadline_text(s, g, 0, frozenset({0})).startswith(f"Game #{gid} is paused")


def test_secret_picks_are_told_as_secret_and_named_once_revealed(sqlite_cfg):
    gid = _table("iaww", 3)
    emails = {_seat_of(gid, e): e for e in ("ann@x.test", "bob@x.test", "cleo@x.test")}
    picks = {}
    for seat in (0, 1):
        picks[seat] = _play_by_mail(gid, seat, emails[seat])
    # Cleo has not picked: the others' picks are secret from her
    with unit_of_work() as s:
        g = games.get(s, gid)
        hidden = visibility.secrets(s, g)
        evs = visibility.events(s, g)
        lines = visibility.since_lines(evs, hidden, 2, 0)
    assert lines == [f"{n} {visibility.SECRET_POST}" for n in ("Ann", "Bob")][:len(lines)] and len(lines) == 2
    # once Cleo picks, the step is revealed and everybody's next mail names the picks
    _play_by_mail(gid, 2, emails[2])
    lines = _told(_board(emails[0]).body_text)
    assert [x.split(" ")[0] for x in lines] == ["Bob", "Cleo"]
    assert not any(visibility.SECRET_POST in x for x in lines)


def test_history_card_and_cards_by_mail(sqlite_cfg):
    gid = _table("squire", 2)
    with unit_of_work() as s:
        first = sorted(games.engine_for(games.get(s, gid)).to_move(games.state_at(s, games.get(s, gid))))[0]
        names = seating.names(s, gid)
    emails = {_seat_of(gid, e): e for e in ("ann@x.test", "bob@x.test")}
    _play_by_mail(gid, first, emails[first])
    # HISTORY on the seat's address and on the command address
    process("bob@x.test", seat_addr(gid, _seat_of(gid, "bob@x.test")), "HISTORY")
    reply = [o for o in outbox("bob@x.test") if o.kind == "reply"][-1].body_text
    assert f"Game #{gid} (Squire), move by move:" in reply and f"   1. {names[first]} " in reply
    process("ann@x.test", CMD, f"HISTORY {gid}")
    assert f"   1. {names[first]} " in [o for o in outbox("ann@x.test") if o.kind == "reply"][-1].body_text
    # CARD: a game's card by name, in any case and spelling of spaces; the game of the address by default
    engine = get_game("iaww")
    card = engine.cards()[0]
    process("ann@x.test", CMD, f"CARD iaww {card.name.upper()}")
    reply = [o for o in outbox("ann@x.test") if o.kind == "reply"][-1].body_text
    assert card.text.splitlines()[0] in reply and f"write it {card.key}" in reply
    # an unknown card: a clear error with an example, nothing else
    process("ann@x.test", CMD, "CARD iaww no such thing at all")
    reply = [o for o in outbox("ann@x.test") if o.kind == "reply"][-1].body_text
    assert "no card called 'no such thing at all' in It's a Wonderful World" in reply and "e.g. CARD iaww" in reply
    process("ann@x.test", CMD, "CARDS spyrium")
    reply = [o for o in outbox("ann@x.test") if o.kind == "reply"][-1].body_text
    assert "The cards of Spyrium (CARD <name> shows one):" in reply
    assert all(len(x) <= 80 for x in reply.splitlines())
    # talk that begins with the word is not the command
    from pbem.mail.commands import split_lines
    assert [x.command for x in split_lines("Card games are fun\nHistory repeats itself\nCARD wind turbines")] == \
        [None, None, "CARD"]


@pytest.mark.parametrize("game", ["spyrium", "squire", "iaww"])
def test_every_game_describes_and_explains_its_moves_and_lists_its_cards(game):
    """What every game tells a player deciding a move (describe_move, explain_move, cards, the options in
    words), for every game (one playout)."""
    import random

    from pbem.engine import validate_options
    engine = get_game(game)
    cards = engine.cards()
    assert cards and len({c.key.lower() for c in cards}) == len(cards)
    assert all(len(line) <= 76 for c in cards for line in c.text.splitlines())
    rng = random.Random(3)
    state = engine.initial_state(3, 3, validate_options(engine, 3, {}))
    for _ in range(200):
        to_move = sorted(engine.to_move(state))
        if not to_move:
            break
        seat = rng.choice(to_move)
        moves = engine.legal_moves(state, seat)
        for m in rng.sample(moves, min(5, len(moves))):
            for words in (engine.describe_move(state, seat, m), engine.explain_move(state, seat, m)):
                assert words and "\n" not in words and "None" not in words and "{" not in words
        state = engine.apply(state, seat, rng.choice(moves))


def test_the_final_mail_carries_the_whole_game(sqlite_cfg):
    from tests.minigame import MINI  # noqa: F401  (registers the test game)
    from tests.mailtools import start_game

    gid = start_game(2, hand=1)
    for _ in range(10):
        with unit_of_work() as s:
            g = games.get(s, gid)
            if g.status == "finished":
                break
            engine, state = games.engine_for(g), games.state_at(s, g)
            seat = sorted(engine.to_move(state))[0]
            move = engine.format_move(state, seat, engine.legal_moves(state, seat)[0])
        process("ann@x.test" if seat == 0 else "p1@x.test", seat_addr(gid, seat), move)
    with unit_of_work() as s:
        g = s.get(Game, gid)
        assert g.status == "finished"
        n = g.ply
    final = [o for o in outbox("ann@x.test") if o.kind in ("board", "reply")][-1].body_text
    assert "The whole game, move by move:" in final
    record = final.split("The whole game, move by move:", 1)[1]
    assert all(f"{p:>4}. " in record for p in range(1, n + 1))


def test_a_choice_on_its_own_line_after_the_move_that_asks_it_is_a_move(sqlite_cfg):
    """'event' then 'adv' on the next line of one mail: the answer words of Spyrium's questions (adv,
    score, lob, +worker, ...) are notation, so the second line is read as the answer to the question
    the first one opens, not set aside as talk because it means nothing on the board the mail answers."""
    from tests.mail.test_takeback_mail import _game, _moves

    gid = _game()
    assert process("ann@x.test", seat_addr(gid, 0), "event\nadv\n\nThanks, Ann")[1] == "done"
    assert [(m[2], m[3]) for m in _moves(gid)] == [("event", False), ("adv", False)]
    reply = [o for o in outbox("ann@x.test") if o.kind == "reply"][-1].body_text
    assert "Thanks, Ann" in reply  # the talk around it is still talk


def test_the_last_mover_s_receipt_is_the_final_mail_with_the_whole_game(sqlite_cfg):
    """The player whose move ends the game gets one mail for it, the receipt, and it carries what
    every other player's last board carries: the result first, who played, and the whole game move
    by move (it used to carry only the result and the board)."""
    from tests.minigame import MINI  # noqa: F401  (registers the test game)
    from tests.mailtools import start_game

    gid = start_game(2, hand=1)
    emails = {0: "ann@x.test", 1: "p1@x.test"}
    last = None
    for _ in range(10):
        with unit_of_work() as s:
            g = games.get(s, gid)
            if g.status == "finished":
                break
            engine, state = games.engine_for(g), games.state_at(s, g)
            last = sorted(engine.to_move(state))[0]
            move = engine.format_move(state, last, engine.legal_moves(state, last)[0])
        before = len(outbox(emails[last]))
        assert process(emails[last], seat_addr(gid, last), move)[1] == "done"
    with unit_of_work() as s:
        g = s.get(Game, gid)
        assert g.status == "finished"
        n, result = g.ply, notify.final_result(s, g)
    mine = outbox(emails[last])[before:]
    assert [o.kind for o in mine] == ["reply"]  # one mail: the receipt is the final board
    other = [o for o in outbox(emails[1 - last]) if o.kind == "board"][-1]
    for final in (mine[0], other):
        text = after_marker(final.body_text)
        assert text.startswith(result) or result in text.split("\n", 2)[0], text[:200]
        assert "Who played:" in text and "The whole game, move by move:" in text
        record = text.split("The whole game, move by move:", 1)[1]
        assert all(f"{p:>4}. " in record for p in range(1, n + 1))
        assert "The whole game, move by move:" in final.body_html
    assert "Results for your mail:" in mine[0].body_text  # ... and still the receipt of the move
