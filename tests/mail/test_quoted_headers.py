"""Nothing of pbem's own mail is ever read as typed, whatever header block a
client writes above it (known or not), and talk keeps only what the player
typed: header blocks of unknown clients are found by what they are (labels,
addresses, dates, dashes around a phrase) right above our marker, a line of
the mail answered, or a '>' quote; a last check strips any address but the
sender's from a post. The whole path (SMTP, worker) with the clients' real
mails: tests/e2e/test_foreign_clients.py."""
from __future__ import annotations

import pytest

from pbem.mail.parse import html_to_text
from pbem.mail.quotes import MARKER, is_header_like, own_lines, strip_reply, without_addresses
from pbem.store.outbox import render_html, render_text

RECEIPT = dict(summary="Results of your mail: 1 OK.", title="pbem", greeting="Dear Ann,",
               results=[], paragraphs=["pick aquaculture  OK: ply 3"], footer="Game #5 at ply 3.")
OLD_LAYOUT = ["auto OK: ply 25", "", MARKER, "", "Dear Ann,", "", "Results for your mail:", "", "> auto",
              "  OK: ply 25", "", "--", "Game #5 at ply 25. Reply to this mail with your move."]
NEW_LAYOUT = [MARKER, "", "Your turn. Bob played: pick mega_drill; auto", "", "Dear Ann,", "", "--",
              "Game #5 at ply 25. Reply to this mail with your move."]
TYPED = ["Let me think about it tonight."]

QQ = ["------------------&nbsp;原始邮件&nbsp;------------------",
      '发件人: "pbem"<game-5.abcdefghijklmnop@pbem.test>;',
      "发送时间: 2026年12月6日(星期天) 上午9:56",
      '收件人: "Bob"<bob@x.test>;',
      "主题: Re: [pbem #5] It's a Wonderful World"]
BLOCKS = {
    "qq": QQ,
    "qq english": ["------------------&nbsp;Original&nbsp;------------------", 'From: "pbem"<pbem@pbem.test>;',
                   "Date: Sun, Dec 6, 2026 09:56 AM", 'To: "Bob"<bob@x.test>;', "Subject: Re: [pbem #5] Squire"],
    "foxmail": ["bob@foxmail.test", " ", "发件人： pbem", "发送时间： 2026-12-06 09:56", "收件人： Bob <bob@x.test>",
                "主题： Re: [pbem #5] Squire"],
    "hcl notes 9": ['-----"pbem" <pbem@pbem.test> wrote: -----', "", 'To: "Bob" <bob@x.test>',
                    'From: "pbem" <pbem@pbem.test>', "Date: 12/06/2026 09:56AM", "Subject: Re: [pbem #5] Squire"],
    "tuta": ["06.12.2026, 09:56 von pbem@pbem.test:"],
    "seznam": ["---------- Původní e-mail ----------", "Od: pbem <pbem@pbem.test>", "Komu: Bob <bob@x.test>",
               "Datum: 6. 12. 2026 9:56:00", "Předmět: Re: [pbem #5] Squire"],
    "neomutt": ["* pbem <pbem@pbem.test> [2026-12-06 09:56 +0000]:"],
    "outlook ja": ["差出人: pbem <pbem@pbem.test>", "送信日時: 2026年12月6日 18:56", "宛先: Bob <bob@x.test>",
                   "件名: RE: [pbem #5] Squire"],
    "daum ko": ["------ 원본 메시지 ------", "보낸사람 : pbem <pbem@pbem.test>", "받는사람 : Bob <bob@x.test>",
                "날짜 : 2026.12.06 18:56", "제목 : RE: [pbem #5] Squire"],
    "interia pl": ["-------- Oryginalna wiadomość --------", "Od: pbem <pbem@pbem.test>", "Do: Bob <bob@x.test>",
                   "Data: 06.12.2026 10:56", "Temat: Re: [pbem #5] Squire"],
    "outlook tr": ["Kimden: pbem <pbem@pbem.test>", "Gönderildi: 6 Aralık 2026 Pazar 12:56",
                   "Kime: Bob <bob@x.test>", "Konu: YNT: [pbem #5] Squire"],
    "outlook el": ["Από: pbem <pbem@pbem.test>", "Στάλθηκε: Κυριακή, 6 Δεκεμβρίου 2026 11:56 πμ",
                   "Προς: Bob <bob@x.test>", "Θέμα: ΑΠ: [pbem #5] Squire"],
    "outlook he": ["מאת: pbem <pbem@pbem.test>", "נשלח: יום ראשון 06 דצמבר 2026 11:56", "אל: Bob <bob@x.test>",
                   "נושא: השב: [pbem #5] Squire"],
    "outlook ar": ["من: pbem <pbem@pbem.test>", "تم الإرسال: الأحد، 6 ديسمبر، 2026 12:56 م", "إلى: Bob <bob@x.test>",
                   "الموضوع: رد: [pbem #5] Squire"],
    "gmail he": ["\u202bבתאריך יום א׳, 6 בדצמ׳ 2026 ב-11:56 מאת \u202apbem\u202c\u200f <\u202apbem@pbem.test\u202c\u200f>:"
                 "\u202c"],
    "an unknown client": ["~~~~ Risposta a ~~~~", "Mittente -> pbem <pbem@pbem.test>", "Quando -> 6/12/2026 10:56"],
}


@pytest.mark.parametrize("client", sorted(BLOCKS))
@pytest.mark.parametrize("layout", ["old", "new"])
def test_a_header_block_above_our_mail_is_quoted_and_nothing_of_ours_is_read(client, layout):
    mail = OLD_LAYOUT if layout == "old" else NEW_LAYOUT
    text = "\n".join(TYPED + ["", ""] + BLOCKS[client] + [""] + mail)
    got = strip_reply(text)
    assert got.text == TYPED[0], got.text
    # and with the lines of the mail answered known (the pipeline reads them from the outbox)
    assert strip_reply(text, own_lines("\n".join(mail))).text == TYPED[0]


@pytest.mark.parametrize("client", sorted(BLOCKS))
def test_the_marker_dropped_by_a_client_the_mail_answered_is_still_found(client):
    """A client that left out our marker (or wrapped it away): the lines of the mail answered mark the quote."""
    mail = [ln for ln in NEW_LAYOUT if ln != MARKER]
    text = "\n".join(TYPED + [""] + BLOCKS[client] + [""] + mail)
    assert strip_reply(text, own_lines("\n".join(NEW_LAYOUT))).text == TYPED[0]


def test_the_reported_case_a_quoted_auto_is_never_played():
    text = "\n".join(TYPED + ["", ""] + QQ + [""] + OLD_LAYOUT)
    assert "auto" not in strip_reply(text).text


@pytest.mark.parametrize("client", ["qq", "hcl notes 9", "outlook he", "daum ko"])
def test_a_header_block_above_a_marked_quote_is_not_typed_and_the_answer_below_is(client):
    quote = ["> " + ln if ln else ">" for ln in NEW_LAYOUT]
    text = "\n".join(BLOCKS[client] + [""] + quote + ["", "pick aquaculture", "Bob"])
    assert strip_reply(text).text == "pick aquaculture\nBob"


@pytest.mark.parametrize("client", ["qq", "seznam", "outlook tr", "outlook el", "outlook ar", "interia pl"])
def test_a_header_block_standing_alone_ends_reading(client):
    """Nothing of ours below it (a forwarded mail, our mail pruned and its marker gone): three header lines,
    two with a label, an address or a date among them, begin a quoted mail."""
    text = "\n".join(TYPED + [""] + BLOCKS[client] + ["", "place 1-2", "SAY hello"])
    assert strip_reply(text).text == TYPED[0]


def test_a_move_with_a_colon_above_a_header_block_is_typed():
    """Spyrium's "Phase 2: pass." and "event: o1" look like labels: they are kept."""
    for move in ("Phase 2: pass.", "event: o1", "K>lunar_base:k"):
        text = "\n".join([move, "* pbem <pbem@pbem.test> [2026-12-06 09:56 +0000]:", "", *NEW_LAYOUT])
        assert strip_reply(text).text == move
        text = "\n".join([move, "", *QQ, "", *NEW_LAYOUT])
        assert strip_reply(text).text == move


def test_a_line_of_ours_copied_alone_is_the_players():
    mail = "\n".join(NEW_LAYOUT + ["Your move, e.g.: place 1-2; phase2 then build 4"])
    text = "Your move, e.g.: place 1-2; phase2 then build 4\n\nthanks"
    assert strip_reply(text, own_lines(mail)).text == text


def test_talk_and_header_lines_are_told_apart():
    for line in ("I'll be late: 10:30 tomorrow?", "Bob: nice one", "Move to York, then sell"):
        assert strip_reply(line + "\n\n" + MARKER).text == line
    assert not is_header_like("Phase 2: pass.") and is_header_like("发件人: pbem")
    assert is_header_like("보낸 사람: pbem") and is_header_like("Kimden: pbem")


def test_html_only_reply_with_an_unknown_header_block_above_our_mail():
    """The marker is the first element of our HTML: a client's header block above it is cut with it."""
    ours = render_html(dict(RECEIPT, summary="Your turn. Bob played: auto"))
    body = ours.split("<body", 1)[1].split(">", 1)[1].rsplit("</body>", 1)[0]
    reply = ("<html><body><div>Let me think about it tonight.</div><div><br></div>"
             "<div>------------------&nbsp;原始邮件&nbsp;------------------</div>"
             '<div style="background:#efefef"><div><b>发件人:</b>&nbsp;"pbem"&lt;pbem@pbem.test&gt;;</div>'
             "<div><b>发送时间:</b>&nbsp;2026年12月6日(星期天) 上午9:56</div>"
             '<div><b>收件人:</b>&nbsp;"Bob"&lt;bob@x.test&gt;;</div></div><div><br></div>'
             f"{body}</body></html>")
    assert strip_reply(html_to_text(reply)).text.strip() == TYPED[0]


def test_the_marker_comes_first_in_our_mails():
    text, html = render_text(RECEIPT), render_html(RECEIPT)
    assert text.startswith(MARKER + "\n\nResults of your mail: 1 OK.\n")
    assert html.index(MARKER) < html.index("Results of your mail")


def test_no_address_but_the_senders_reaches_a_post():
    text = 'Nice!\n收件人: "Bob"<bob@x.test>; cc dee@y.test\nmail me: ann@x.test'
    assert without_addresses(text, {"ann@x.test"}) == 'Nice!\n收件人: "Bob"<[…]>; cc […]\nmail me: ann@x.test'
    assert without_addresses("no address here", set()) == "no address here"


# ---------------------------------------------------------------- the typed text: lists, emphasis, commas

from pbem.mail.commands import split_lines  # noqa: E402
from pbem.mail.lines import split_steps  # noqa: E402


@pytest.mark.parametrize("typed, read", [
    ("1. start London", ["start London"]), ("2) buy", ["buy"]), ("(3) cell F1C1", ["cell F1C1"]),
    (" 1. start London", ["start London"]), ("  * pass", ["pass"]), ("- pick wind_turbines", ["pick wind_turbines"]),
    ("• pass", ["pass"]), ("*place 1-2*", ["place 1-2"]), ("**place 1-2**", ["place 1-2"]), ("_pass_", ["pass"]),
    ("__done__", ["done"]), ("start *London*; **buy**", ["start London", "buy"]),
    ("R industrial_complex>museum; R mega_drill>E", ["R industrial_complex>museum", "R mega_drill>E"]),
    ("K>lunar_base:k", ["K>lunar_base:k"]), ("4-5", ["4-5"]), ("45", ["45"]),
])
def test_list_marks_and_emphasis_are_structure(typed, read):
    lines = split_lines(typed, on_seat=True)
    assert [m for ln in lines for m in ln.moves] == read


@pytest.mark.parametrize("typed, command, args", [
    ("1. JOIN 5", "JOIN", ["5"]), ("**HELP**", "HELP", []), ("- GAMES", "GAMES", []), ("*SAY* hello", "SAY", ["hello"]),
])
def test_on_the_command_address_too(typed, command, args):
    (line,) = split_lines(typed)
    assert (line.command, line.args) == (command, args)


def test_a_say_keeps_its_own_emphasis():
    (line,) = split_lines("SAY **good** luck, _all_")
    assert line.command == "SAY" and line.raw == "SAY **good** luck, _all_"


def test_commas_split_steps_only_when_every_part_is_a_step():
    words = {"start", "buy", "sell", "cell", "move", "exhibit", "offers"}

    def step(p):
        return p.split()[0].lower() in words

    assert split_steps("start London, buy, cell F1C1", step) == ["start London", "buy", "cell F1C1"]
    assert split_steps("move york, london", step) == ["move york, london"]  # a Squire path
    assert split_steps("sell offers M01, M18", step) == ["sell offers M01, M18"]  # an offers list
    assert split_steps("start London, then buy", step) == ["start London, then buy"]


def test_quotes_marked_with_initials_and_an_intro_without_a_verb():
    """The Bat! and FidoNet-style clients quote with the writer's initials ("pb> ") under an intro in the
    writer's words ("You wrote 6 December 2026, 9:56:"); IAWW's "m>E" is never taken for a quote."""
    text = "\n".join(["Hello pbem,", "", "place 1-2", "", "You wrote 6 December 2026, 9:56:", "",
                      *("pb> " + ln if ln else "pb>" for ln in NEW_LAYOUT), "", "--", "Best regards,", " Ann"])
    assert strip_reply(text).text == "Hello pbem,\n\nplace 1-2"
    assert strip_reply("m>E; x>icebreaker\n\n" + MARKER).text == "m>E; x>icebreaker"


from hypothesis import given, settings, strategies as st  # noqa: E402

PIECES = [MARKER, "", "place 1-2", "Phase 2: pass.", "> " + MARKER, "> quoted", "pb> " + MARKER, "pb> x",
          *QQ, *BLOCKS["hcl notes 9"], *BLOCKS["outlook he"], "Results of your mail: 1 OK.", "auto OK: ply 25",
          "Your turn. Bob played: pick mega_drill; auto", "Thanks!", "-- ", "Ann", "m>E", "bob@x.test"]


@settings(deadline=None, max_examples=300)
@given(st.lists(st.sampled_from(PIECES), max_size=40))
def test_nothing_of_ours_nor_below_it_is_ever_read(pieces):
    """Whatever the order of lines: what is read is lines as typed, never the marker, never a line below an
    unmarked marker, never a line of the mail answered that another of ours confirms."""
    text = "\n".join(pieces)
    mail = "\n".join(NEW_LAYOUT + OLD_LAYOUT)
    got = strip_reply(text, own_lines(mail)).text
    kept = [ln for ln in got.split("\n") if ln.strip()]
    assert all(ln in pieces for ln in kept)
    assert MARKER not in got
    if MARKER in pieces:
        below = pieces[pieces.index(MARKER):]
        assert not [ln for ln in kept if ln in below and ln not in pieces[:pieces.index(MARKER)]]


def test_moves_copied_from_the_boards_list_are_typed():
    """A board lists the moves a player may make, one a line; the player copies some of them into the reply
    above the quoted board: they are the player's moves, not a quote."""
    board = "\n".join([MARKER, "", "Your turn.", "", "Dear Cleo,", "", "Your move. Legal now:",
                       "  C fountain_of_youth", "  C recycling_plant", "  C research_center", "", "--",
                       "Game #1 at ply 42. Reply to this mail with your move."])
    typed = ["C fountain_of_youth", "C recycling_plant", "C research_center", "done"]
    text = "\n".join(typed + ["", "On Tue, 24 Nov 2026 at 21:00, pbem <pbem@pbem.test> wrote:"]
                     + ["> " + ln for ln in board.split("\n")])
    assert strip_reply(text, own_lines(board)).text == "\n".join(typed)
    # and a client that lost the marker: the listed moves are still the player's
    text = "\n".join(typed + ["", *QQ, ""] + [ln for ln in board.split("\n") if ln != MARKER])
    assert strip_reply(text, own_lines(board)).text == "\n".join(typed)
