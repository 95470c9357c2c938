"""Replies from clients whose quote headers pbem does not know by name (QQ
Mail, Foxmail, HCL Notes, Seznam, Tuta, neomutt, Daum, Interia, Outlook in
Japanese, Turkish, Greek, Hebrew and Arabic, Gmail in Chinese, Japanese,
Korean, Czech, Turkish, Greek, Hebrew and Arabic: tests/mailclients.py),
to mails pbem really sent, through the real SMTP receiver and a real Celery
worker. Nothing of pbem's quoted mail is read: the moves typed are applied
and nothing else; talk is posted exactly as typed, without the client's
header block and without anyone's address; a line of pbem's quoted under an
unknown header block never plays, not even a move that is legal now."""
from __future__ import annotations

import pytest
from sqlmodel import select

from pbem.store.db import unit_of_work
from pbem.store.models import Move, Outbound, Post
from tests import mailclients as mc
from tests.conftest import celery_worker, installed, make_settings, smtp_receiver
from tests.e2e.test_reading_e2e import WHEN, _latest, _legal, _mover, _receipt, _send
from tests.mailtools import CMD, outbox, process

GREETING = {"zh": "大家好，", "ja": "皆さん、こんにちは。", "ko": "안녕하세요,", "cs": "Ahoj všichni,", "pl": "Cześć wszystkim,",
            "tr": "Herkese merhaba,", "el": "Γεια σε όλους,", "he": "שלום לכולם,", "ar": "مرحبا بالجميع،",
            "en": "Hi all,", "de": "Hallo zusammen,"}
THANKS = {"zh": "谢谢！", "ja": "ありがとう！", "ko": "감사합니다!", "cs": "Díky!", "pl": "Dzięki!", "tr": "Teşekkürler!",
          "el": "Ευχαριστώ!", "he": "תודה!", "ar": "شكرا!", "en": "Thanks!", "de": "Danke!"}
TALK = {"zh": "哈！我看得懂，{who}。", "ja": "はは、読めますよ、{who}さん。", "ko": "하! 읽을 수 있어요, {who}.",
        "cs": "Ha! To umím přečíst, {who}.", "pl": "Ha! Umiem czytać, {who}.", "tr": "Ha! Bunu okuyabiliyorum, {who}.",
        "el": "Χα! Μπορώ να το διαβάσω, {who}.", "he": "הא! אני יודעת לקרוא את זה, {who}.",
        "ar": "ها! أستطيع قراءة ذلك يا {who}.", "en": "Ha! I can read that, {who}.", "de": "Ha! Das kann ich lesen, {who}."}

# every client and language of the new part of the corpus: (label, locale, builder)
CLIENTS = [(key, spec[1], lambda o, p, a, key=key: mc.header_client(o, p, a, key))
           for key, spec in mc.HEADER_CLIENTS.items()]
CLIENTS += [("tuta", "de", lambda o, p, a: mc.tuta(o, p, a)),
            ("neomutt bottom", "en", lambda o, p, a: mc.neomutt(o, p, a, style="bottom")),
            ("neomutt top", "en", lambda o, p, a: mc.neomutt(o, p, a, style="top"))]
CLIENTS += [(f"gmail {loc}", loc, lambda o, p, a, loc=loc: mc.gmail(o, p, a, loc=loc))
            for loc in ("zh", "ja", "ko", "cs", "tr", "el", "he", "ar")]
GAMES = ("squire", "spyrium", "iaww")


@pytest.fixture(scope="module")
def loop(tmp_path_factory):
    """One database, receiver and worker for the whole module (a worker takes seconds to start): each
    test plays tables of its own, with addresses no other test of the module uses."""
    cfg = make_settings(tmp_path_factory.mktemp("loop"), inbound_rate=10_000, smtpd_rate_per_ip=0,
                        smtpd_rate_per_sender=0)
    with installed(cfg), smtp_receiver(cfg), celery_worker(cfg):
        yield cfg


NAMES = ("Ann", "Bob", "Cy")


def _world(n: int, game: str) -> tuple[int, dict[str, str]]:
    """A table of three of its own (addresses and names no other table uses), opened and joined by mail: the
    boards are the mails pbem sent. Its game id and the players' names by address."""
    from pbem.store.models import Game

    who = {f"{nm.lower()}.{n}@x.test": f"{nm}{n}" for nm in NAMES}
    for email, name in who.items():
        process(email, CMD, f"REGISTER {name}")
    first, *others = who
    process(first, CMD, f"NEW {game} players=3")
    with unit_of_work() as s:
        gid = s.exec(select(Game.id).order_by(Game.id.desc())).first()
    for email in others:
        process(email, CMD, f"JOIN {gid}")
    return gid, who


def _orig(row: Outbound, loc: str) -> mc.Original:
    return mc.Original.from_outbound(row, CMD, sent=WHEN)


def _moves(gid: int) -> list[tuple[int, str]]:
    with unit_of_work() as s:
        return [(m.seat, m.notation) for m in s.exec(select(Move).where(Move.game_id == gid).order_by(Move.ply))]


def _posts(gid: int) -> list[str]:
    with unit_of_work() as s:
        return [p.body for p in s.exec(select(Post).where(Post.game_id == gid, Post.kind == "post").order_by(Post.id))]


def _errors(row: Outbound) -> list[str]:
    return [ln.strip() for ln in row.body_text.splitlines() if ln.strip().startswith("ERROR")]


def test_every_new_client_answers_a_board_with_its_moves_and_nothing_else(loop):
    """A board answered by each client (greeting, the move, thanks, the
    player's name): exactly the move typed is applied, the answer has no
    ERROR, nothing is posted."""
    problems = []
    for n, (label, loc, build) in enumerate(CLIENTS):
        gid, names = _world(n, GAMES[n % len(GAMES)])
        seat, who, board = _mover(gid)
        move = _legal(gid, seat)[0]
        name = names[who]
        answer = mc.Answer([GREETING[loc], "", move, "", THANKS[loc], name])
        before = _moves(gid)
        _send(loop, build(_orig(board, loc), mc.Player(name, who), answer), who, board.headers["Reply-To"])
        receipt = _receipt(who)
        applied = _moves(gid)[len(before):]
        if [m for _, m in applied][:1] != [move] or any(s != seat for s, _ in applied):
            problems.append(f"{label}: applied {applied}, typed {move!r}")
        if _errors(receipt):
            problems.append(f"{label}: {_errors(receipt)[:2]}")
        if _posts(gid):
            problems.append(f"{label}: posted {_posts(gid)}")
    assert not problems, "\n".join(problems)


def test_every_new_client_answers_table_talk_with_exactly_what_was_typed(loop):
    """Another player's table talk answered by each client: the post is the
    typed line, without the client's header block, without any address."""
    problems = []
    for n, (label, loc, build) in enumerate(CLIENTS):
        gid, names = _world(100 + n, GAMES[n % len(GAMES)])
        seat, who, board = _mover(gid)
        other = next(e for e in names if e != who)
        process(other, _latest(other, "board", gid).headers["Reply-To"], "SAY Good luck, everyone!")
        talk = [o for o in outbox(who) if o.message_id.startswith("<pbem.talk.")][-1]
        typed = TALK[loc].format(who=names[other])
        _send(loop, build(_orig(talk, loc), mc.Player(names[who], who), mc.Answer([typed])), who,
              talk.headers["Reply-To"])
        posts = _posts(gid)
        mine = posts[1:]
        if mine != [typed]:
            problems.append(f"{label}: posted {mine!r}, typed {typed!r}")
        if any("@" in p for p in posts):
            problems.append(f"{label}: an address reached a post: {posts!r}")
        if _moves(gid):
            problems.append(f"{label}: moves {_moves(gid)}")
    assert not problems, "\n".join(problems)


def _old_layout(orig: mc.Original) -> mc.Original:
    """The same mail as pbem wrote it before the marker came first: its summary above the marker."""
    import dataclasses
    import re

    from pbem.mail.quotes import MARKER

    head, rest = orig.text.split(MARKER + "\n\n", 1)
    summary, body = rest.split("\n\n", 1)
    mark = re.search(r'<div class="pbem-mark"[^>]*>[^<]*</div>', orig.html).group(0)
    summ = re.search(r'\n?<div class="summary"[^>]*><b>[^<]*</b></div>', orig.html).group(0)
    html = orig.html.replace(mark + summ, summ.lstrip("\n") + "\n" + mark)
    assert html != orig.html
    return dataclasses.replace(orig, text=f"{summary}\n\n{MARKER}\n\n{body}", html=html)


@pytest.mark.parametrize("layout", ["new", "old", "old, pruned"])
def test_a_qq_reply_never_changes_a_secret_pick_with_a_quoted_line(loop, layout):
    """A reported case: in a simultaneous secret step of It's a Wonderful World, a QQ Mail player who typed
    only "Let me think about it tonight." above her quoted receipt. The receipt quotes a pick she has since
    replaced (legal again now: the step is not revealed); QQ writes its header block (原始邮件, 发件人, 收件人)
    and the mail unindented. Nothing is played, nothing posted, the answer has no error -- with the mail
    as pbem writes it now (marker first), as it wrote it before (summary first), and when the outbox no
    longer holds it."""
    gid, names = _world(240 + ["new", "old", "old, pruned"].index(layout), "iaww")
    seat, who, board = _mover(gid)
    first, second = _legal(gid, seat)[:2]
    addr = board.headers["Reply-To"]
    process(who, addr, first)
    quoted = _latest(who, "reply", gid)
    process(who, addr, second)  # she changed her mind: her order on file is now the second pick
    with unit_of_work() as s:
        before = [(m.ply, m.seat, m.notation, m.undone) for m in s.exec(select(Move).where(Move.game_id == gid))]
    orig = _orig(quoted, "zh")
    if layout != "new":
        orig = _old_layout(orig)
    if layout == "old, pruned":
        with unit_of_work() as s:
            s.delete(s.get(Outbound, quoted.id))
    raw = mc.header_client(orig, mc.Player(names[who], who), mc.Answer(["Let me think about it tonight."]), "qq")
    _send(loop, raw, who, addr)
    answer = _receipt(who)
    with unit_of_work() as s:
        after = [(m.ply, m.seat, m.notation, m.undone) for m in s.exec(select(Move).where(Move.game_id == gid))]
    assert after == before, answer.body_text
    assert not _errors(answer) and "replaces" not in answer.body_text, answer.body_text
    assert "| Let me think about it tonight." in answer.body_text
    assert first not in answer.body_text.split("=== pbem board ===")[0].split("Not read as moves")[1]
    assert _posts(gid) == []


def test_a_foxmail_private_answer_carries_no_address(loop):
    """A private message answered from Foxmail, whose header block names the sender's and the recipient's
    addresses: the private post is the typed line alone."""
    gid, names = _world(250, "squire")
    seat, who, board = _mover(gid)
    other = next(e for e in names if e != who)
    process(other, _latest(other, "board", gid).headers["Reply-To"], f"SAY {names[who]}: shall we share London?")
    pm = [o for o in outbox(who) if o.message_id.startswith("<pbem.pm")][-1]
    typed = "OK, deal. You take York."
    _send(loop, mc.header_client(_orig(pm, "zh"), mc.Player(names[who], who), mc.Answer([typed]), "foxmail"), who,
          pm.headers["Reply-To"])
    assert _posts(gid)[-1] == typed and not any("@" in p for p in _posts(gid))
