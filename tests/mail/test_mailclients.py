"""The reply builders of tests/mailclients.py write what the clients write:
their MIME structure, charsets, attribution lines, quoting and flowed
text. (These check the corpus's builders, not pbem's reading of them.)"""
from __future__ import annotations

import email
import re
from datetime import datetime, timedelta, timezone
from email import policy

import lxml.html
import pytest

from pbem.store.outbox import render_html, render_text
from pbem.mail.quotes import MARKER
from tests import mailclients as mc

SEAT = "game-7.abcdefghijklmnopqrstuvwxyz234567@pbem.example.org"
LONG = "C museum; R industrial_complex>museum; R aquaculture>E; R mega_drill>E; done"


def board_mail(domain: str = "pbem.example.org", **when) -> mc.Original:
    ctx = {"title": "Spyrium #7", "greeting": "Dear Ann,", "paragraphs": ["Bob played: place 4-5"],
           "board_text": "Round 1\nRed to move", "board_html": "<p><b>Round 1</b></p><p>Red to move</p>",
           "board_title": "Spyrium #7, ply 3", "help_text": "Your move. Legal now: place 1-2",
           "footer": f"Game #7 at ply 3. Reply to this mail (it goes to {SEAT}) with your move"}
    sent = datetime(2026, 11, 23, 10, 0, tzinfo=timezone(timedelta(hours=when.get("tz", 1))))
    return mc.Original(subject="[pbem #7 ply 3] Spyrium: your turn", text=render_text(ctx), html=render_html(ctx),
                       message_id="<pbem.board.7.3.0123456789abcdef01234567@pbem.example.org>",
                       from_addr=f"pbem@{domain}", reply_to=SEAT, to_addr="ann@x.test", sent=sent)


ANN = mc.Player("Ann", "ann@x.test")
ANSWER = mc.Answer(["Hi all,", "", "place 1-2", "", "Thanks!", "Ann"],
                   [("head", ["Good one, Bob."]), ("help", ["place 1-2"])])


def parse(raw: bytes):
    assert b"\r\n" in raw and b"\n" not in raw.replace(b"\r\n", b"")  # CRLF as on the wire
    return email.message_from_bytes(raw, policy=policy.default)


def parts(msg) -> dict[str, str]:
    return {p.get_content_type(): p.get_content().replace("\r\n", "\n") for p in msg.walk() if not p.is_multipart()}


def test_every_reply_threads_under_pbems_mail_and_goes_to_the_seat():
    orig = board_mail()
    for raw in (mc.gmail(orig, ANN, ANSWER), mc.outlook_html(orig, ANN, ANSWER), mc.outlook_text(orig, ANN, ANSWER),
                mc.thunderbird(orig, ANN, ANSWER), mc.apple(orig, ANN, ANSWER), mc.samsung(orig, ANN, ANSWER),
                mc.k9(orig, ANN, ANSWER), mc.mailru(orig, ANN, ANSWER), mc.yandex(orig, ANN, ANSWER),
                mc.proton(orig, ANN, ANSWER)):
        msg = parse(raw)
        assert msg["In-Reply-To"] == orig.message_id and orig.message_id in msg["References"]
        assert SEAT in msg["To"] and "ann@x.test" in msg["From"]
        assert "[pbem #7 ply 3]" in msg["Subject"]


@pytest.mark.parametrize("loc, line", [
    ("en", "On Mon, Nov 23, 2026 at 10:00 AM pbem <pbem@x.test> wrote:"),
    ("en-GB", "On Mon, 23 Nov 2026 at 10:00, pbem <pbem@x.test> wrote:"),
    ("es", "El lun, 23 nov 2026 a las 10:00, pbem (<pbem@x.test>) escribió:"),
    ("pt", "Em seg., 23 de nov. de 2026 às 10:00, pbem <pbem@x.test> escreveu:"),
    ("ru", "пн, 23 нояб. 2026 г. в 10:00, pbem <pbem@x.test>:"),
    ("bg", "На пн, 23.11.2026 г. в 10:00 ч. pbem <pbem@x.test> написа:"),
    ("it", "Il giorno lun 23 nov 2026 alle ore 10:00 pbem <pbem@x.test> ha scritto:"),
    ("de", "Am Mo., 23. Nov. 2026 um 10:00 Uhr schrieb pbem <pbem@x.test>:"),
    ("fr", "Le lun. 23 nov. 2026 à 10:00, pbem <pbem@x.test> a écrit :"),
    ("nl", "Op ma 23 nov 2026 om 10:00 schreef pbem <pbem@x.test>:"),
    ("pl", "pon., 23 lis 2026 o 10:00 pbem <pbem@x.test> napisał(a):"),
    ("uk", "пн, 23 лист. 2026 р. о 10:00 pbem <pbem@x.test> пише:"),
])
def test_gmail_attribution_in_each_language(loc, line):
    orig = board_mail("x.test", tz=mc.TZ_HOURS[loc])
    assert mc.gmail_attribution(orig, loc) == line


def test_gmail_breaks_a_long_attribution_after_the_bracket():
    # as Gmail wrote "Am Fr., 28. Nov. 2025 um 15:57 Uhr schrieb Test Mailer <\ntesting@testing.com>:" (77)
    line = "Am Fr., 28. Nov. 2025 um 15:57 Uhr schrieb Test Mailer <testing@testing.com>:"
    assert mc.gmail_wrap(line) == ["Am Fr., 28. Nov. 2025 um 15:57 Uhr schrieb Test Mailer <", "testing@testing.com>:"]
    # or, when the address fits on the line, at the last space ("<addr>\nwrote:", here "ha\nscritto:")
    msg = parse(mc.gmail(board_mail(), ANN, ANSWER, loc="it"))
    assert "alle ore 10:00 pbem <pbem@pbem.example.org> ha\nscritto:\n\n> Spyrium #7" in parts(msg)["text/plain"]


def test_gmail_top_posted_alternative_with_its_quote_markup():
    msg = parse(mc.gmail(board_mail(), ANN, ANSWER, loc="de"))
    assert msg.get_content_type() == "multipart/alternative"
    text, html = parts(msg)["text/plain"], parts(msg)["text/html"]
    assert text.startswith("Hi all,\n\nplace 1-2\n\nThanks!\nAnn\n\nAm Mo., 23. Nov. 2026 um 10:00 Uhr schrieb")
    assert "\n> Dear Ann,\n>\n> Bob played: place 4-5\n" in text  # quoted from the HTML part, as Gmail does
    doc = lxml.html.fromstring(html)
    quote = doc.xpath("//div[contains(@class, 'gmail_quote')]")[0]
    assert quote.xpath("./div[@class='gmail_attr']") and quote.xpath("./blockquote[@class='gmail_quote']//h1")
    assert "place 1-2" in doc.xpath("//div[@dir='ltr']")[0].text_content()


def test_gmail_interleaved_splits_the_quote_around_the_answer():
    msg = parse(mc.gmail(board_mail(), ANN, ANSWER, style="interleaved"))
    text = parts(msg)["text/plain"]
    assert "> Bob played: place 4-5\n\nGood one, Bob.\n\n> *Round 1*" in text
    assert "> Your move. Legal now: place 1-2\n\nplace 1-2\n\n> Game #7 at ply 3." in text
    doc = lxml.html.fromstring(parts(msg)["text/html"])
    assert len(doc.xpath("//blockquote[@class='gmail_quote']")) == 3


def _after(doc, first, then) -> bool:
    order = list(doc.iter())
    return order.index(then) > order.index(first)


def test_outlook_desktop_html_only_the_quoted_mail_follows_the_header_block():
    raw = mc.outlook_html(board_mail(), ANN, mc.Answer(['board fox "Sir Fox"', "Danke!"]), loc="de")
    msg = parse(raw)
    assert msg.get_content_type() == "text/html" and msg["Content-Transfer-Encoding"] == "quoted-printable"
    assert msg.get_content_charset() == "windows-1252" and msg["Subject"].startswith("AW: ")
    html = msg.get_content()
    doc = lxml.html.fromstring(html)
    block = doc.xpath("//div[contains(@style, 'border-top:solid #E1E1E1 1.0pt')]")[0]
    assert "Von:" in block.text_content() and "Gesendet:" in block.text_content() and "Betreff:" in block.text_content()
    h1 = doc.xpath("//h1")[0]
    assert _after(doc, block, h1) and block not in h1.iterancestors() and not doc.xpath("//blockquote")
    assert "Board fox \u201cSir Fox\u201d" in html  # Word's autocorrect
    assert 'class="wrap"' not in html  # Word keeps none of the sender's classes


def test_outlook_web_html_only_with_appendonsend_and_prefixed_classes():
    msg = parse(mc.outlook_html(board_mail(), ANN, ANSWER, loc="fr", variant="owa", charset="utf-8"))
    doc = lxml.html.fromstring(msg.get_content())
    head = doc.xpath("//div[@id='divRplyFwdMsg']")[0]
    assert doc.xpath("//div[@id='appendonsend']") and doc.xpath("//hr")
    assert "De\u00a0:" in head.text_content() and "Objet\u00a0:" in head.text_content()
    wrap = doc.xpath("//div[@class='x_wrap']")[0]
    assert _after(doc, head, wrap) and head not in wrap.iterancestors()


def test_outlook_classic_original_message_in_a_paragraph():
    msg = parse(mc.outlook_html(board_mail(), ANN, ANSWER, loc="en", variant="classic"))
    html = msg.get_content().replace("\r\n", "\n")
    assert "<p class=MsoNormal>-----Original Message-----<br>\nFrom: pbem &lt;pbem@pbem.example.org&gt; <br>" in html
    assert "<p class=MsoNormal>=== pbem board === Spyrium #7, ply 3 ===<o:p></o:p></p>" in html


def test_outlook_plain_text_header_block_and_unindented_quote():
    text = parse(mc.outlook_text(board_mail(tz=3), ANN, ANSWER, loc="ru")).get_content().replace("\r\n", "\n")
    assert "\n-----Исходное сообщение-----\nОт: pbem <pbem@pbem.example.org> \nОтправлено: понедельник, 23 ноября " \
           "2026 г. 10:00\nКому: Ann <ann@x.test>\nТема: [pbem #7 ply 3] Spyrium: your turn\n\n" + MARKER + \
           "\n\nDear Ann,\n" in text


@pytest.mark.parametrize("charset", ["KOI8-R", "windows-1251", "UTF-8"])
def test_thunderbird_russian_bottom_posted_flowed(charset):
    answer = mc.Answer(["Привет!", "", LONG, "", "Ой, понятно."])
    raw = mc.thunderbird(board_mail(tz=3), mc.Player("Борис", "bob@x.test"), answer, loc="ru", charset=charset,
                         signature=["Борис"])
    msg = email.message_from_bytes(raw)
    assert msg.get_content_type() == "text/plain" and msg.get_param("format") == "flowed"
    assert msg.get_content_charset() == charset.lower() and msg["Content-Transfer-Encoding"] == "8bit"
    body = msg.get_payload(decode=True).decode(charset).replace("\r\n", "\n")
    assert body.startswith(f"23.11.2026 10:00, pbem пишет:\n> {MARKER}\n>\n> Dear Ann,\n>\n> Bob played: place 4-5\n")
    lines = body.split("\n")
    assert all(len(ln) <= 72 for ln in lines if not ln.startswith(">"))
    soft = [ln for ln in lines if ln.endswith(" ") and ln != "-- "]
    assert soft and body.index("Привет!") > body.index("> Game #7 at ply 3.")  # below the quote
    assert LONG in mc.unflow(body) and LONG not in body
    assert body.rstrip("\n").endswith("Ой, понятно.\n\n-- \nБорис")


def test_thunderbird_localised_attributions():
    orig = board_mail()
    assert mc.thunderbird_attribution(orig, "nl") == "Op 23-11-2026 om 10:00 schreef pbem:"
    assert mc.thunderbird_attribution(board_mail(tz=2), "uk") == "23.11.26 10:00, pbem пише:"
    assert mc.thunderbird_attribution(orig, "pl") == "W dniu 23.11.2026 o 10:00, pbem pisze:"
    assert mc.thunderbird_attribution(board_mail(tz=0), "en-GB") == "On 23/11/2026 10:00, pbem wrote:"


def test_apple_mail_flowed_with_delsp():
    longer = LONG + "; Thanks, Bob, that was a nice one"
    msg = email.message_from_bytes(mc.apple(board_mail(tz=0), ANN, mc.Answer([longer]), loc="en-GB", smart=False))
    plain = [p for p in msg.walk() if p.get_content_type() == "text/plain"][0]
    assert plain.get_param("delsp") == "yes" and plain.get_param("format") == "flowed"
    text = plain.get_payload(decode=True).decode("utf-8").replace("\r\n", "\n")
    assert re.search(r"\S  \n", text)  # the soft break's own space, deleted by the reader
    assert longer in mc.unflow(text, delsp=True) and longer not in text
    assert "On 23 Nov 2026, at 10:00, pbem <pbem@pbem.example.org> wrote:" in text
    html = [p for p in msg.walk() if p.get_content_type() == "text/html"][0].get_payload(decode=True).decode()
    assert '<blockquote type="cite">' in html


@pytest.mark.parametrize("loc, sent_from", [("de", "Von meinem iPhone gesendet"), ("fr", "Envoyé de mon iPhone"),
                                            ("ru", "Отправлено с iPhone"), ("nl", "Verzonden met mijn iPhone")])
def test_iphone_signs_in_its_language_and_quotes_the_attribution(loc, sent_from):
    msg = parse(mc.apple(board_mail(), ANN, mc.Answer(['board fox "Sir Fox"']), loc=loc, iphone=True))
    text = parts(msg)["text/plain"]
    assert text.startswith(f"Board fox \u201cSir Fox\u201d\n\n{sent_from}\n\n> ")
    assert "\n>\n> \ufeff" in text  # the quote starts with a zero-width no-break space


def test_phones_and_webmailers():
    orig = board_mail()
    samsung = parts(parse(mc.samsung(orig, ANN, ANSWER, loc="de")))["text/plain"]
    assert "\n-------- Ursprüngliche Nachricht --------\nVon: pbem <pbem@pbem.example.org> \nDatum: 23.11.26 " \
        in samsung
    k9 = parse(mc.k9(orig, ANN, ANSWER, loc="de")).get_content().replace("\r\n", "\n")
    assert f"\nAm 23. November 2026 10:00:00 MEZ schrieb pbem <pbem@pbem.example.org>:\n>{MARKER}\n>\n>Dear Ann,\n" in k9
    assert "\n-- \nDiese Nachricht wurde von meinem Android-Gerät mit K-9 Mail gesendet.\n" in k9
    mailru = parts(parse(mc.mailru(board_mail(tz=3), ANN, ANSWER)))["text/plain"]
    assert "Отправлено из мобильной Почты Mail.ru\n\n\nПонедельник, 23 ноября 2026, 10:00 +03:00 от pbem " in mailru
    yandex = parse(mc.yandex(board_mail(tz=3), ANN, ANSWER))
    assert yandex.get_content_type() == "text/html" and yandex["Content-Transfer-Encoding"] == "8bit"
    assert "23.11.2026, 10:00, &quot;pbem&quot; &lt;pbem@pbem.example.org&gt;:" in yandex.get_content() or \
        '23.11.2026, 10:00, "pbem" &lt;pbem@pbem.example.org&gt;:' in yandex.get_content()
    proton = parts(parse(mc.proton(board_mail(tz=0), ANN, ANSWER)))["text/plain"]
    assert "Sent with Proton Mail secure email.\n\n------- Original Message -------\nOn Monday, November 23rd, " \
           f"2026 at 10:00, pbem <pbem@pbem.example.org> wrote:\n\n\n> {MARKER}\n>\n> Spyrium #7" in proton


def test_smart_punctuation():
    assert mc.smarten('board fox "Sir Fox"') == "Board fox \u201cSir Fox\u201d"
    assert mc.smarten("I'll pick it") == "I\u2019ll pick it"
    assert mc.smarten("done.", capitalize=False) == "done."


@pytest.mark.parametrize("key", sorted(mc.HEADER_CLIENTS))
def test_clients_with_a_header_block_of_their_own(key):
    """QQ Mail, Foxmail, HCL Notes, Seznam, Daum, Interia and Outlook in Japanese, Turkish, Greek, Hebrew and
    Arabic: the answer, the client's separator and labels in its language, then pbem's mail unindented."""
    orig = board_mail()
    msg = email.message_from_bytes(mc.header_client(orig, ANN, mc.Answer(["place 1-2"]), key))
    assert msg["In-Reply-To"] == orig.message_id and SEAT in msg["To"]
    part = next(p for p in msg.walk() if p.get_content_type() in ("text/plain", "text/html"))
    text = part.get_payload(decode=True).decode(part.get_content_charset()).replace("\r\n", "\n")
    labels = mc.HEADER_CLIENTS[key][3]
    assert all(label in text for label in labels), text[:600]
    assert text.index("place 1-2") < text.index(labels[0]) < text.index(MARKER)
    assert f"\n> {MARKER}" not in text  # quoted without '>'


def test_qq_mail_writes_its_separator_with_literal_entities_and_its_date():
    raw = mc.header_client(board_mail(), ANN, mc.Answer(["Let me think about it tonight."]), "qq")
    msg = email.message_from_bytes(raw)
    plain = next(p for p in msg.walk() if p.get_content_type() == "text/plain")
    assert plain.get_content_charset() == "gb18030"
    text = plain.get_payload(decode=True).decode("gb18030").replace("\r\n", "\n")
    assert "\n------------------&nbsp;原始邮件&nbsp;------------------\n发件人: \"pbem\"<pbem@pbem.example.org>;\n" \
           "发送时间: 2026年11月23日(星期一) 下午5:00\n收件人: \"Ann\"<ann@x.test>;\n" in text
    assert email.header.make_header(email.header.decode_header(msg["Subject"])).__str__().startswith("回复：")


def test_hcl_notes_tuta_and_neomutt():
    notes = email.message_from_bytes(mc.header_client(board_mail(), ANN, mc.Answer(["pass"]), "notes"))
    text = next(p for p in notes.walk() if p.get_content_type() == "text/plain").get_payload(decode=True).decode()
    assert '\n-----"pbem" <pbem@pbem.example.org> wrote: -----\n\nTo: "Ann" <ann@x.test>\n' in text.replace("\r", "")
    tuta = email.message_from_bytes(mc.tuta(board_mail(), ANN, mc.Answer(["pass"])))
    html = tuta.get_payload(decode=True).decode()
    assert tuta.get_content_type() == "text/html" and "23.11.2026, 10:00 von pbem@pbem.example.org:" in html
    assert '<blockquote class="tutanota_quote"' in html
    mutt = email.message_from_bytes(mc.neomutt(board_mail(tz=0), ANN, mc.Answer(["pass"])))
    body = mutt.get_payload(decode=True).decode().replace("\r\n", "\n")
    assert body.startswith(f"* pbem <pbem@pbem.example.org> [2026-11-23 10:00 +0000]:\n> {MARKER}\n")
    assert body.endswith("\npass\n\n-- \nAnn\n")


@pytest.mark.parametrize("loc, line", [
    ("zh", "pbem <pbem@x.test> 于2026年11月23日周一 18:00写道："),
    ("ja", "2026年11月23日(月) 19:00 pbem <pbem@x.test>:"),
    ("ko", "2026년 11월 23일 (월) 오후 7:00, pbem <pbem@x.test>님이 작성:"),
    ("cs", "po 23. 11. 2026 v 11:00 odesílatel pbem <pbem@x.test> napsal:"),
    ("tr", "pbem <pbem@x.test>, 23 Kas 2026 Pzt, 13:00 tarihinde şunu yazdı:"),
    ("el", "Στις Δευ 23 Νοε 2026 στις 12:00 μ.μ., ο/η pbem <pbem@x.test> έγραψε:"),
])
def test_gmail_attribution_in_more_languages(loc, line):
    assert mc.gmail_attribution(board_mail("x.test", tz=0), loc) == line
