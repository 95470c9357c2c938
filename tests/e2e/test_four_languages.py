"""A whole game played by mail with one player in
each of pbem's four languages -- English, Russian, Bulgarian, Italian --
through the real SMTP receiver and a real Celery worker.

Four players register by mail; the Russian, Bulgarian and Italian ones
write from clients that say their language (Content-Language), so each
account starts in it (the first mail's guess). They play a 4-player
Spyrium to its end, each replying to the board mail that showed it its
turn, as a mail client does (Reply-To, "Re:", In-Reply-To, the board
quoted). Each move is the game's bot's from the state of that board; once
per player a move is written with its language's own words (an alias of
the game's ALIASES table, looked up at run time), and once per player a
move is refused, answered in that player's language. At the end: every mail
to each player spoke that player's language (Content-Language, and the
words of its language), and the game ended with the same result as the same
moves give in English (the engine alone, no mail). Pictures off, as in the
other whole-game tests."""
from __future__ import annotations

import email
import email.policy
import importlib
import os
import pkgutil
import random
import re
import time
from pathlib import Path

from sqlmodel import select

from pbem.engine import bots, get_game
from pbem.services.core import games
from pbem.store.db import unit_of_work
from pbem.store.models import Game, Inbound, Move, Outbound, Seat, User
from tests.conftest import celery_worker, send_mail, smtp_receiver
from tests.mailtools import CMD, mail, quoted_reply, wait_for

GAME = get_game("spyrium")
LANGS = ("en", "ru", "bg", "it")
NAMES = {"en": "Ann", "ru": "Boris", "bg": "Vesela", "it": "Giulia"}
ADDR = {lang: f"{NAMES[lang].lower()}@x.test" for lang in LANGS}
SEED = 23
# the receipts' heading, and the status of a refused line, in each language (the mail catalog)
RESULTS = {"en": "Results for your mail:", "ru": "Итоги вашего письма:", "bg": "Резултати от писмото ви:",
           "it": "Esito della tua mail:"}
ERROR = {"en": "ERROR", "ru": "ОШИБКА", "bg": "ГРЕШКА", "it": "ERRORE"}
# words of the language's own that a mail to its reader holds (the mail template and catalog)
WORDS = {
    "en": re.compile(r"\b(Results for your mail|Since your last move|Your move|game|ply)\b", re.I),
    "ru": re.compile(r"[а-яё]{4,}", re.I),
    "bg": re.compile(r"[а-яъ]{4,}", re.I),
    "it": re.compile(r"\b(della|tua|mossa|partita|Dalla|Esito|mail|ultima|posto)\b"),
}
NOT_A_MOVE = "place 99-99"  # no such lot: refused by the engine, in the player's language


def _all(q):
    with unit_of_work() as s:
        return list(s.exec(q))


def aliases_for(lang: str) -> dict[str, str]:
    """{canonical word: alias} of ``lang`` from the game's ALIASES table
    (pbem.engine.i18n.Aliases), wherever in the game's package it is."""
    from pbem.engine.i18n import Aliases

    package = importlib.import_module(type(GAME).__module__.rsplit(".", 1)[0])
    modules = [package] + [importlib.import_module(f"{package.__name__}.{m.name}")
                           for m in pkgutil.iter_modules(package.__path__)]
    for module in modules:
        table = getattr(module, "ALIASES", None)
        if isinstance(table, Aliases):
            out: dict[str, str] = {}
            for alias, canonical in table.table.get(lang, {}).items():
                out.setdefault(canonical.casefold(), alias)
            return out
    return {}


def in_words(move: str, lang: str) -> str | None:
    """``move`` with its first word written the language's way, if the table has it."""
    words = aliases_for(lang)
    first, _, rest = move.partition(" ")
    alias = words.get(first.casefold()) or words.get(move.casefold())
    if alias is None:
        return None
    return alias if move.casefold() in words else f"{alias} {rest}".strip()


def said_in(lang: str, raw: bytes) -> bytes:
    """The mail as a client set to ``lang`` writes it: with its Content-Language (none for English here)."""
    if lang == "en":
        return raw
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    msg["Content-Language"] = lang
    return msg.as_bytes()


def _ply_of(o: Outbound) -> tuple[int | None, int | None]:
    from pbem.store.addresses import parse_message_refs

    ref = parse_message_refs(o.message_id, "pbem.test")[0]
    return ref.game_id, ref.ply


def _settled(expected: int) -> bool:
    rows = _all(select(Inbound.status))
    return len(rows) >= expected and not any(st == "received" for st in rows) and \
        all(st == "sent" for st in _all(select(Outbound.status)))


def _english_result(moves: list[tuple[int, str]], players: int, seed: int, options: dict):
    """The outcome the same moves give in English, by the engine alone."""
    state = GAME.initial_state(players, seed, options)
    for seat, notation in moves:
        state = GAME.apply(state, seat, GAME.parse_move(state, seat, notation))
    return GAME.outcome(state)


def test_a_whole_game_with_a_player_in_each_language(sqlite_cfg):
    from pbem import config, tasks

    cfg = sqlite_cfg.with_(smtpd_rate_per_ip=0, smtpd_rate_per_sender=0, mail_pictures=False)
    config.set_settings(cfg)
    tasks.configure(cfg)
    rng = random.Random(SEED)
    sent = 0

    def send(frm: str, to: str, raw: bytes) -> None:
        nonlocal sent
        assert send_mail(cfg, raw, frm, to) == 250
        sent += 1
        wait_for(lambda: _settled(sent), timeout=60)

    with smtp_receiver(cfg), celery_worker(cfg):
        # the players register; the Russian, Bulgarian and Italian clients say their language
        for lang in LANGS:
            body = f"REGISTER {NAMES[lang]}\n" + ("NEW spyrium players=4" if lang == "en" else "")
            send(ADDR[lang], CMD, said_in(lang, mail(ADDR[lang], CMD, body)))
            if lang == "en":
                gid = wait_for(lambda: _all(select(Game.id))[:1])[0]
            else:
                send(ADDR[lang], CMD, said_in(lang, mail(ADDR[lang], CMD, f"JOIN {gid}")))
        with unit_of_work() as s:
            g = games.get(s, gid)
            assert g.status == "running" and g.players == 4
            lang_of = {}
            for st in s.exec(select(Seat).where(Seat.game_id == gid)):
                u = s.get(User, st.user_id)
                lang_of[st.seat] = next(lang for lang in LANGS if ADDR[lang] == u.email)
                assert u.language == lang_of[st.seat] and not u.language_chosen, (u.email, u.language)
            seed, options = g.seed, dict(g.options or {})

        refused: dict[str, str] = {}  # language -> the receipt of its refused move
        aliased: dict[str, tuple[str, str, str]] = {}  # language -> (what the player wrote, the move, Message-ID)
        while True:
            with unit_of_work() as s:
                g = games.get(s, gid)
                if g.status != "running":
                    break
                ply, state = g.ply, games.state_at(s, g)
            (seat,) = GAME.to_move(state)
            lang = lang_of[seat]
            shown = [o for o in _all(select(Outbound).where(Outbound.to_addr == ADDR[lang]))
                     if _ply_of(o) == (gid, ply) and o.headers.get("Reply-To", "").startswith(f"game-{gid}.")]
            assert shown, (lang, ply)
            board = shown[-1]
            move = GAME.format_move(state, seat, bots.choose(GAME, state, seat, rng.randrange(1 << 30)))
            if lang not in refused:  # once each: a move refused, in the player's language
                mid = f"<four.refused.{lang}.{time.time_ns()}@x.test>"
                send(ADDR[lang], board.headers["Reply-To"], quoted_reply(ADDR[lang], board, NOT_A_MOVE,
                                                                         message_id=mid))
                receipt = [o for o in _all(select(Outbound)) if o.headers.get("In-Reply-To") == mid]
                assert len(receipt) == 1, receipt
                refused[lang] = receipt[0].body_text
                assert receipt[0].headers["Content-Language"] == lang
                assert f"> {NOT_A_MOVE}\n  {ERROR[lang]}: " in receipt[0].body_text, receipt[0].body_text
                with unit_of_work() as s:
                    assert games.get(s, gid).ply == ply  # nothing applied
            written = move
            if lang != "en" and lang not in aliased and (words := in_words(move, lang)):
                written = words  # the player's own words for it (e.g. Russian "пас" for "pass")
            mid = f"<four.{gid}.{ply}.{time.time_ns()}@x.test>"
            if written != move:
                aliased[lang] = (words, move, mid)
            send(ADDR[lang], board.headers["Reply-To"], quoted_reply(ADDR[lang], board, written, message_id=mid))
            with unit_of_work() as s:
                assert games.get(s, gid).ply == ply + 1 or games.get(s, gid).status != "running", \
                    [o.body_text for o in _all(select(Outbound)) if o.headers.get("In-Reply-To") == mid]

    # ------------------------------------------------------------ what came of it
    with unit_of_work() as s:
        g = games.get(s, gid)
        assert g.status == "finished" and g.outcome, (g.status, g.outcome)
        moves = [(m.seat, m.notation) for m in s.exec(select(Move).where(Move.game_id == gid).order_by(Move.ply))]
    # the same result as the same moves in English: notation is never translated
    english = _english_result(moves, 4, seed, options)
    assert list(g.outcome["scores"]) == list(english.scores)
    assert all(re.fullmatch(r"[\x20-\x7e]+", n) for _, n in moves)  # the record is the English notation
    assert all(r.status == "done" for r in _all(select(Inbound))), [(r.id, r.status, r.error)
                                                                    for r in _all(select(Inbound))]
    out = _all(select(Outbound).order_by(Outbound.id))
    assert all(o.status == "sent" for o in out)
    for lang in LANGS:
        mine = [o for o in out if o.to_addr == ADDR[lang]]
        boards = [o for o in mine if o.game_id == gid]
        assert len(boards) > 10, (lang, len(boards))
        for o in mine:  # every mail to the player, boards and receipts, in the player's language
            assert o.headers["Content-Language"] == lang, (lang, o.subject, o.headers)
            assert WORDS[lang].search(o.body_text), (lang, o.body_text)
            if lang == "bg":  # Bulgarian, not Russian: no ы or э in Bulgarian
                assert not re.search("[ыэЫЭ]", o.body_text), o.body_text
            if lang == "ru":
                assert re.search("[ыэ]", o.body_text), o.body_text
        if os.environ.get("PBEM_I18N_SAMPLES"):  # samples for a reader: one mail of each language, as mailed
            folder = Path(os.environ["PBEM_I18N_SAMPLES"])
            folder.mkdir(parents=True, exist_ok=True)
            (folder / f"board-{lang}.txt").write_text(boards[len(boards) // 2].body_text)
            (folder / f"refusal-{lang}.txt").write_text(refused[lang])
        receipts = [o for o in mine if o.kind == "reply" and o.game_id == gid]
        assert receipts and all(RESULTS[lang] in o.body_text for o in receipts), lang
        assert lang in refused
    # one move per player in its language's words, when the game's table has words for one it played
    for lang in ("ru", "bg", "it"):
        assert aliases_for(lang), f"the game has no {lang} notation words"
        assert lang in aliased, f"no move of the {lang} player could be written with its aliases"
    for lang, (words, move, mid) in aliased.items():
        # applied as the English move (the record), the receipt showing the line as the player wrote it
        receipt = [o for o in out if o.headers.get("In-Reply-To") == mid]
        assert len(receipt) == 1 and f"> {words}\n  OK: " in receipt[0].body_text, receipt
        assert ERROR[lang] not in receipt[0].body_text.split("=== pbem board ===")[0]
        assert any(n == move for _, n in moves)
