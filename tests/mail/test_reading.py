"""Reading a reply as the player meant it: quotes cut by what they
are (our own marker, '>' lines, attribution lines in many languages, header
blocks, separators, signatures), bottom-posted and interleaved replies kept,
format=flowed undone, typography normalised, and a player's talk told apart
from notation. The whole path (SMTP, worker, pipeline) is in
tests/e2e/test_reading_e2e.py and the client corpus."""
from __future__ import annotations

import pytest

from pbem.engine import get_game
from pbem.engine.base import looks_like_move
from pbem.mail.commands import normalize, split_lines
from pbem.mail.parse import body_text, html_to_text, parse_message, unflow
from pbem.mail.quotes import MARKER, strip_reply

BOARD = [MARKER, "", "Dear Ann,", "", "Bob played: pass", "", "=== pbem board === Spyrium #1, ply 4 ===", "",
         "Round 1", "", "--", "Game #1 at ply 4. Reply to this mail with your move."]


def quoted(lines, prefix="> "):
    return [prefix + ln if ln else prefix.rstrip() for ln in lines]


def read(text: str) -> str:
    return strip_reply(text).text


# ---------------------------------------------------------------- attribution lines, one and two lines

ATTRIBUTIONS = {
    "en gmail": "On Mon, 23 Nov 2026 at 10:00, pbem <game-1.abcdefghijklmnop@pbem.test> wrote:",
    "en apple": "On 23 Nov 2026, at 10:00, pbem <game-1.abcdefghijklmnop@pbem.test> wrote:",
    "en thunderbird": "On 23/11/2026 10:00, pbem wrote:",
    "es gmail": "El lun, 23 nov 2026 a las 10:00, pbem (<game-1.abcdefghijklmnop@pbem.test>) escribió:",
    "pt gmail br": "Em seg., 23 de nov. de 2026 às 10:00, pbem <game-1.abcdefghijklmnop@pbem.test> escreveu:",
    "pt gmail pt": "pbem <game-1.abcdefghijklmnop@pbem.test> escreveu (segunda, 23/11/2026 à(s) 10:00):",
    "fr gmail": "Le lun. 23 nov. 2026 à 10:00, pbem <game-1.abcdefghijklmnop@pbem.test> a écrit :",
    "de gmail": "Am Mo., 23. Nov. 2026 um 10:00 Uhr schrieb pbem <game-1.abcdefghijklmnop@pbem.test>:",
    "de k9": "Am 23. November 2026 10:00:00 MEZ schrieb pbem <game-1.abcdefghijklmnop@pbem.test>:",
    "it gmail": "Il giorno lun 23 nov 2026 alle ore 10:00 pbem <game-1.abcdefghijklmnop@pbem.test> ha scritto:",
    "nl gmail": "Op ma 23 nov 2026 om 10:00 schreef pbem <game-1.abcdefghijklmnop@pbem.test>:",
    "nl thunderbird": "Op 23-11-2026 om 10:00 schreef pbem:",
    "pl gmail": "W dniu pon., 23.11.2026 o 10:00 pbem <game-1.abcdefghijklmnop@pbem.test> napisał(a):",
    "pl pisze": "W dniu 23.11.2026 o 10:00, pbem pisze:",
    "ru gmail": "пн, 23 нояб. 2026 г. в 10:00, pbem <game-1.abcdefghijklmnop@pbem.test>:",
    "ru thunderbird": "23.11.2026 10:00, pbem пишет:",
    "ru написал": "pbem написал(а):",
    "uk thunderbird": "23.11.26 10:00, pbem пише:",
    "uk gmail": "пн, 23 лист. 2026 р. о 10:00 pbem <game-1.abcdefghijklmnop@pbem.test> пише:",
    "bg gmail": "На пн, 23.11.2026 г. в 10:00 ч. pbem <game-1.abcdefghijklmnop@pbem.test> написа:",
    "yandex": '23.11.2026, 10:00, "pbem" <game-1.abcdefghijklmnop@pbem.test>:',
    "mail.ru": "Понедельник, 23 ноября 2026, 10:00 +03:00 от pbem <game-1.abcdefghijklmnop@pbem.test>:",
    "de gmail name first": "pbem <game-1.abcdefghijklmnop@pbem.test> schrieb am Mo., 23. Nov. 2026, 10:00:",
    "de thunderbird": "Am 23.11.2026 um 10:00 schrieb pbem:",
    "nl apple": "Op 23 nov. 2026 om 10:00 heeft pbem <game-1.abcdefghijklmnop@pbem.test> het volgende geschreven:",
    "pl apple": "Wiadomość napisana przez pbem <game-1.abcdefghijklmnop@pbem.test> w dniu 23.11.2026, o godz. 10:00:",
    "pt apple": "No dia 23/11/2026, às 10:00, pbem <game-1.abcdefghijklmnop@pbem.test> escreveu:",
    "ru apple": "23 нояб. 2026 г., в 10:00, pbem <game-1.abcdefghijklmnop@pbem.test> написал(а):",
    "sv": "den 23 nov. 2026 kl. 10:00 skrev pbem <game-1.abcdefghijklmnop@pbem.test>:",
    "cs gmail": "po 23. 11. 2026 v 10:00 odesílatel pbem <game-1.abcdefghijklmnop@pbem.test> napsal:",
    "tr gmail": "pbem <game-1.abcdefghijklmnop@pbem.test>, 23 Kas 2026 Pzt, 10:00 tarihinde şunu yazdı:",
    "zh": "pbem <game-1.abcdefghijklmnop@pbem.test> 于2026年11月23日周一 10:00写道：",
    "ko": "2026년 11월 23일 (월) 오전 10:00, pbem <game-1.abcdefghijklmnop@pbem.test>님이 작성:",
    "ja": "2026年11月23日(月) 10:00 pbem <game-1.abcdefghijklmnop@pbem.test>:",
    "pl dnia": "Dnia 23.11.2026 o 10:00 pbem nadesłał(a):",
    "da": "Den man. 23. nov. 2026 kl. 10.00 skrev pbem <game-1.abcdefghijklmnop@pbem.test>:",
    "yahoo": "On Monday, November 23, 2026, 10:00:00 AM GMT+1, pbem <game-1.abcdefghijklmnop@pbem.test> wrote:",
}


def _wrapped(attribution: str) -> list[str]:
    """The attribution wrapped onto two lines, as Gmail and others wrap a long
    one: inside the address after its '<', else at a space near the middle
    (a short one is never wrapped)."""
    if len(attribution) < 60:
        return [attribution]
    if "<" in attribution:
        cut = attribution.index("<") + 1
    else:
        cut = attribution.rfind(" ", 0, len(attribution) // 2 + 4) + 1
    return [attribution[:cut].rstrip(), attribution[cut:].lstrip()]


@pytest.mark.parametrize("name", sorted(ATTRIBUTIONS))
@pytest.mark.parametrize("wrap", [False, True])
def test_top_and_bottom_posted_in_every_language(name, wrap):
    head = _wrapped(ATTRIBUTIONS[name]) if wrap else [ATTRIBUTIONS[name]]
    # top-posted: the reply, the attribution, the quote
    top = "\n".join(["place 4-5", "", *head, "", *quoted(BOARD)])
    assert read(top) == "place 4-5", name
    # top-posted with an unmarked quote (no '>'): reading ends at the attribution
    assert read("\n".join(["place 4-5", "", *head, "", *BOARD, "NEW spyrium"])) == "place 4-5", name
    # bottom-posted: attribution and quote first, the reply below
    bottom = "\n".join([*head, "", *quoted(BOARD), "", "place 4-5", "Ann"])
    assert read(bottom) == "place 4-5\nAnn", name
    # interleaved: reply lines between quoted blocks
    inter = "\n".join([*head, *quoted(BOARD[:5]), "", "Thanks!", *quoted(BOARD[5:]), "", "place 4-5"])
    assert [ln for ln in read(inter).split("\n") if ln] == ["Thanks!", "place 4-5"], name


SEPARATORS = [
    "-----Original Message-----", "-------- Original message --------", "-------- Ursprüngliche Nachricht --------",
    "-----Message d'origine-----", "-------- Mensaje original --------", "-------- Mensagem original --------",
    "-------- Messaggio originale --------", "-------- Oorspronkelijk bericht --------",
    "-------- Wiadomość oryginalna --------", "-------- Исходное сообщение --------",
    "-------- Оригинално съобщение --------", "-------- Вихідне повідомлення --------",
    "------- Original Message -------", "---------- Forwarded message ---------", "________________________________",
]


@pytest.mark.parametrize("sep", SEPARATORS)
def test_separators_end_reading(sep):
    text = "\n".join(["pass", "", sep, "From: pbem", "NEW spyrium", "REGISTER Dan", *BOARD])
    assert read(text) == "pass"


HEADER_BLOCKS = [
    ("From: pbem <pbem@pbem.test>", "Sent: Monday, November 23, 2026 10:00 AM"),
    ("Von: pbem <pbem@pbem.test>", "Gesendet: Montag, 23. November 2026 10:00"),
    ("De : pbem <pbem@pbem.test>", "Envoyé : lundi 23 novembre 2026 10:00"),
    ("De: pbem <pbem@pbem.test>", "Enviado: lunes, 23 de noviembre de 2026 10:00"),
    ("Da: pbem <pbem@pbem.test>", "Inviato: lunedì 23 novembre 2026 10:00"),
    ("Van: pbem <pbem@pbem.test>", "Verzonden: maandag 23 november 2026 10:00"),
    ("Od: pbem <pbem@pbem.test>", "Wysłano: poniedziałek, 23 listopada 2026 10:00"),
    ("От: pbem <pbem@pbem.test>", "Отправлено: 23 ноября 2026 г. 10:00"),
    ("От: pbem <pbem@pbem.test>", "Изпратено: 23 ноември 2026 10:00"),
    ("Від: pbem <pbem@pbem.test>", "Надіслано: 23 листопада 2026 р. 10:00"),
    ("*From:* pbem <pbem@pbem.test>", "*Date:* Monday, 23 November 2026 at 10:00"),
]


@pytest.mark.parametrize("block", HEADER_BLOCKS)
def test_header_blocks_end_reading(block):
    text = "\n".join(["Hi all,", "pass", "", *block, "To: Ann", "Subject: [pbem #1] Spyrium", "", "STOP", *BOARD])
    assert read(text) == "Hi all,\npass"


SIGNATURES = [
    "Sent from my iPhone", "Von meinem iPhone gesendet", "Envoyé de mon iPhone", "Inviato da iPhone",
    "Enviado desde mi iPhone", "Enviado do meu iPhone", "Verzonden met mijn iPhone", "Wysłane z mojego iPhone'a",
    "Отправлено с iPhone", "Отправлено из мобильной Почты Mail.ru", "Изпратено от моя iPhone",
    "Надіслано з iPhone", "Sent with Proton Mail secure email.", "Get Outlook for Android",
    "Gesendet von meinem Samsung Galaxy Smartphone.", "Sent from my Galaxy", "-- ", "--", "从我的iPhone发送",
    "Sent from Yahoo Mail on Android", "Sent from Mail for Windows",
    "Sent from Mail<https://go.microsoft.com/fwlink/?LinkId=550986> for Windows",
    "Get Outlook for iOS<https://aka.ms/o0ukef>", "Gesendet von Outlook für Android<https://aka.ms/AAb9ysg>",
]


@pytest.mark.parametrize("sig", SIGNATURES)
def test_signatures_end_reading(sig):
    assert read("\n".join(["pick wind", "", sig, "SAY quoted", "NEW squire"])) == "pick wind"


def test_a_closing_after_the_moves_ends_reading():
    assert read("place 4-5\n\nBest regards,\nAnn Smith\nTel. 030 1234-5678") == "place 4-5\n\nBest regards,"
    assert read("pick wind\nС уважением,\nАнна\n+7 495 123-45-67") == "pick wind\nС уважением,"
    assert read("Thanks!\nplace 4-5") == "Thanks!\nplace 4-5"  # a thank-you first is not a closing


def test_bar_quoting_is_quoting():
    assert read("| NEW spyrium\n| REGISTER Dan\npass") == "pass"


def test_end_ends_reading_and_our_marker_ends_reading():
    assert read("pass\nEND\nNEW spyrium") == "pass"
    assert read("pass\nend.\nSTOP") == "pass"
    assert read("pass\n\n" + "\n".join(BOARD) + "\nNEW spyrium") == "pass"
    # a board quoted from before the marker existed: its own structure
    assert read("pass\n=== pbem board === Spyrium #1, ply 4 ===\nplace 1-2") == "pass"
    # "Fine." is an answer, not the Italian for "end"
    assert read("Fine.\npass") == "Fine.\npass"


def test_attribution_without_a_quote_after_it_ends_reading_and_prose_with_a_colon_does_not():
    assert read("pass\nOn Mon, Bob wrote:\nNEW spyrium\nREGISTER Dan") == "pass"
    assert read("My moves:\npass") == "My moves:\npass"
    assert read("Bob, you wrote that well:\npass") == "Bob, you wrote that well:\npass"


# ---------------------------------------------------------------- HTML-only replies

OUR_HTML = ('<div class="pbem-mark" id="pbem-mark">' + MARKER + '</div><div class="wrap"><p>Dear Ann,</p>'
            '<table class="results"><tr><td>NEW spyrium</td><td>OK</td></tr><tr><td>REGISTER Dan</td><td>OK</td></tr>'
            '</table><div class="footer">pbem</div></div>')


@pytest.mark.parametrize("move", ["place 1-2", "move 3-4", "earn 7-8", "buy 12.5", "sell 1/2"])
@pytest.mark.parametrize("attribution", [
    '25.11.2026, 03:02, "pbem" <pbem@pbem.test>:',  # Yandex: straight after the answer, no blank line
    "Bob wrote:",
    "Am 25.11.2026 um 03:02 schrieb pbem <pbem@pbem.test>:",
])
def test_a_move_right_before_the_attribution_is_not_taken_for_half_of_it(move, attribution):
    """Found answering picture mails from Yandex: "place 1-2" looked like the first half of an
    attribution wrapped onto two lines ("1-2" read as a date), so the answer was dropped with the quote."""
    text = f"{move}\n{attribution}\n> the board"
    assert strip_reply(text).text == move
    assert strip_reply(f"  {move}\n  {attribution}\n  >").text.strip() == move



@pytest.mark.parametrize("shape", ["outlook desktop", "owa", "outlook classic", "outlook border", "gmail",
                                   "apple", "thunderbird bottom", "apple bottom", "no container"])
def test_html_only_replies_keep_only_the_new_text(shape):
    reply = "<div>GAMES</div><div>Thanks!</div>"
    header = ('<div style="border:none;border-top:solid #E1E1E1 1.0pt;padding:3.0pt 0cm 0cm 0cm">'
              '<p class="MsoNormal"><b>From:</b> pbem &lt;pbem@pbem.test&gt;<br><b>Sent:</b> Monday, '
              'November 23, 2026 10:00 AM<br><b>To:</b> Ann<br><b>Subject:</b> Re: hello</p></div>')
    html = {
        "outlook desktop": f'<html><body><div class="WordSection1">{reply}<div id="divRplyFwdMsg" dir="ltr">'
                           f'<b>From:</b> pbem<br><b>Sent:</b> Monday</div><div>{OUR_HTML}</div></div></body></html>',
        "owa": f'<html><body><div>{reply}</div><div id="appendonsend"></div><hr style="display:inline-block">'
               f'<div id="x_divRplyFwdMsg"><b>From:</b> pbem</div><div class="x_wrap"><p>NEW spyrium</p>'
               f'<p>REGISTER Dan</p></div></body></html>',
        "outlook classic": f'<html><body>{reply}<p class=MsoNormal>-----Original Message-----<br>From: pbem '
                           f'[mailto:pbem@pbem.test]<br>Sent: Monday<br>To: Ann<br>Subject: hello</p>'
                           f'<p class=MsoNormal>NEW spyrium</p><p class=MsoNormal>REGISTER Dan</p></body></html>',
        "outlook border": f'<html><body><div class="WordSection1">{reply}{header}<p>NEW spyrium</p>'
                          f'<p>REGISTER Dan</p></div></body></html>',
        "gmail": f'<div dir="ltr">{reply}</div><br><div class="gmail_quote"><div class="gmail_attr">On Mon, '
                 f'pbem wrote:<br></div><blockquote class="gmail_quote">{OUR_HTML}</blockquote></div>',
        "apple": f'<html><body>{reply}<div><br><blockquote type="cite"><div>On 23 Nov 2026, at 10:00, pbem '
                 f'wrote:</div>{OUR_HTML}</blockquote></div></body></html>',
        "thunderbird bottom": f'<html><body><div class="moz-cite-prefix">On 23/11/2026 10:00, pbem wrote:<br>'
                              f'</div><blockquote type="cite">{OUR_HTML}</blockquote>{reply}</body></html>',
        "apple bottom": f'<html><body><div>On 23 Nov 2026, at 10:00, pbem wrote:</div><blockquote type="cite">'
                        f'{OUR_HTML}</blockquote>{reply}</body></html>',
        "no container": f'<html><body>{reply}<br><br>{OUR_HTML}</body></html>',
    }[shape]
    lines = [ln.strip() for ln in read(html_to_text(html)).split("\n") if ln.strip()]
    assert lines == ["GAMES", "Thanks!"], (shape, lines)


# ---------------------------------------------------------------- format=flowed, charsets, typography


@pytest.mark.parametrize("container", ['<div class="gmail_signature" data-smartmail="gmail_signature">',
                                       '<div class="moz-signature">', '<div id="Signature">',
                                       '<div id="x_Signature">', '<div id="AppleMailSignature">'])
def test_marked_html_signatures_are_not_read(container):
    html = (f"<div>place 4-5</div>{container}<div>Ann Smith</div><div>Move 3-4 Ltd., Tel. 1-2 3</div></div>"
            f"<div id='divRplyFwdMsg'>From: pbem</div>{OUR_HTML}")
    assert [ln.strip() for ln in read(html_to_text(html)).split("\n") if ln.strip()] == ["place 4-5"]


def test_format_flowed_is_unwrapped_with_and_without_delsp():
    assert unflow("R tank_division>research_center#1; C \nwind_turbines; done\n> quoted \n> on", False) == \
        "R tank_division>research_center#1; C wind_turbines; done\n> quoted on"
    assert unflow("phase2 act 7 7-8 ad \nv", True) == "phase2 act 7 7-8 adv"
    assert unflow("-- \nAnn", False) == "-- \nAnn"  # the signature separator is never flowed
    assert unflow(" From the space-stuffed line", False) == "From the space-stuffed line"


def test_flowed_koi8r_thunderbird_mail_reads_as_written():
    raw = ("From: Ann <ann@x.test>\r\nTo: game-1.abc@pbem.test\r\nSubject: Re: [pbem #1] Spyrium\r\n"
           "Content-Type: text/plain; charset=KOI8-R; format=flowed; delsp=yes\r\n"
           "Content-Transfer-Encoding: 8bit\r\n\r\n").encode() + \
        ("23.11.2026 10:00, pbem пишет:\r\n> Ваш ход.\r\n\r\nphase2 act 7 7-8 a \r\ndv\r\n\r\n-- \r\nАнна\r\n"
         ).encode("koi8-r")
    assert read(body_text(parse_message(raw))) == "phase2 act 7 7-8 adv"


def test_typography_and_trailing_punctuation_are_normalised():
    assert normalize("buy offers “M01”.") == 'buy offers "M01"'
    assert normalize("board badger “Lady Badger”") == 'board badger "Lady Badger"'
    assert normalize("DONE.") == "DONE"
    assert normalize("move york–london") == "move york-london"
    assert normalize("• pick wind!") == "pick wind"
    assert split_lines("Sir Fox’s move: board fox\u00a0“Sir Fox”", on_seat=True)[0].moves == \
        ["Sir Fox's move: board fox \"Sir Fox\""]
    msg = parse_message("From: a@x.test\r\nContent-Type: text/plain; charset=utf-8\r\n\r\npick\u00a0wind\u200b\r\n"
                        .encode())
    assert body_text(msg) == "pick wind\n"


# ---------------------------------------------------------------- talk or notation


@pytest.mark.parametrize("game,text,meant", [
    ("spyrium", "Thanks!", False), ("spyrium", "Hi all,", False), ("spyrium", "Ann", False),
    ("spyrium", "Ой, понятно.", False), ("spyrium", "Ha! I can read that, Ann.", False),
    ("spyrium", "See you in two weeks", False), ("spyrium", "I pass", True), ("spyrium", "4-5", True),
    ("spyrium", "phase2 act 7 7-8 adv", True), ("spyrium", "a 7 7-8", True), ("spyrium", "plac 4-5", True),
    ("spyrium", "That's it: \"place 1-2\" is mine", False), ("spyrium", "I'll place 1-2", True),
    ("squire", "move york-london", True), ("squire", "F1C2", True), ("squire", "offers M07", True),
    ("squire", "Danke schön!", False), ("iaww", "P.S. good luck", False), ("iaww", "C icebreaker", True),
    ("iaww", "R tank_division>research_center#1", True), ("iaww", "DONE", True), ("iaww", "3", True),
    ("iaww", "pick wind", True), ("iaww", "Von meinem iPhone gesendet", False),
])
def test_talk_is_told_from_notation(game, text, meant):
    assert looks_like_move(get_game(game), normalize(text)) is meant


def test_hostile_shapes_are_read():
    """Shapes that made the backtracking stripper used before take seconds to
    days (blank lines, 'On On On ...', long attribution-like lines): every
    test here matches one short line against anchored patterns, so these are
    read in one pass (a regression would show as a suite that stalls here)."""
    for text in ("\n" * 200_000, "On " * 60_000 + "\n", ("x: " * 100 + "\n") * 2000,
                 ("On Mon, " + "a " * 190 + "\n") * 2000, "<a@b>" * 50_000 + ":\n"):
        assert isinstance(strip_reply(text).text, str)


def test_every_front_door_reads_typography_the_same(sqlite_cfg):
    """The web form and the mail both go through services.submit_moves,
    which reads a move typed with smart punctuation as the player meant it."""
    from sqlmodel import select

    from pbem.services.core import games, moves
    from pbem.store.db import unit_of_work
    from pbem.store.models import Game
    from tests.mailtools import CMD, process

    for who in ("Ann", "Bob"):
        process(f"{who.lower()}@x.test", CMD, f"REGISTER {who}")
    process("ann@x.test", CMD, "NEW squire players=2")
    with unit_of_work() as s:
        gid = s.exec(select(Game.id)).first()
    process("bob@x.test", CMD, f"JOIN {gid}")
    engine = get_game("squire")
    with unit_of_work() as s:
        g = games.get(s, gid)
        st = games.state_at(s, g)
        seat = min(engine.to_move(st))
        move = next(engine.format_move(st, seat, m) for m in engine.legal_moves(st, seat)
                    if '"' in engine.format_move(st, seat, m))
        typed = move.replace('"', "\u201c", 1).replace('"', "\u201d", 1) + "."
        res = moves.submit_moves(s, gid, seat, [typed], source="web")
        assert res.error is None and [a.notation for a in res.applied] == [move]


def test_only_what_the_sender_saw_and_wrote_is_read():
    """Hidden HTML (display:none, visibility:hidden, zero font size, the
    hidden attribute) and a mail forwarded beside the sender's own HTML text
    are never read as the sender's commands."""
    html = ('<div>wait</div><div style="display: none">RESIGN 1</div><span style="font-size:0px">STOP</span>'
            '<div hidden>NEW spyrium</div><p style="color:red; visibility:hidden !important">SAY hi</p>'
            '<p style="font-size:0.9em">Thanks!</p>')
    assert [ln.strip() for ln in html_to_text(html).split("\n") if ln.strip()] == ["wait", "Thanks!"]
    raw = ("From: a@x.test\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=b\r\n\r\n"
           "--b\r\nContent-Type: text/html; charset=utf-8\r\n\r\n<div>wait</div>\r\n"
           "--b\r\nContent-Type: message/rfc822\r\n\r\nFrom: bob@x.test\r\nContent-Type: text/plain\r\n\r\nRESIGN 1\r\n"
           "--b--\r\n").encode()
    assert body_text(parse_message(raw)).strip() == "wait"
