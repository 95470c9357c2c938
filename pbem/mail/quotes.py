"""What the player wrote, without what they quoted.

Quotes are cut by what they are, not only by fingerprints of clients:

* every mail pbem sends starts with a marker line (``MARKER``; a marked
  element in HTML, see parse.html_to_text), so reading stops at the first
  sign of our own mail however a client quotes it; the lines of the mail
  being answered (``ours``, when the pipeline still has it) count as such a
  sign too;
* whatever a client writes right above our own text -- a header block of
  any client, known or not: a run of header-looking lines (a label such as
  "From:" or "发件人:", an address, a date, dashes around a phrase) with at
  least one address, date or separator among them -- is quoted as well, and
  so is the one-line summary older mails carried above the marker; a header
  block right above a ``>`` quote is skipped, and three header lines with an
  address or a date end reading even with nothing of ours below them;
* ``>``-quoted lines are skipped wherever they stand, so top-posted,
  bottom-posted and interleaved replies all keep the new text;
* an attribution line ("On ... wrote:", in the languages our players write,
  on one line or wrapped onto two) is skipped when a ``>`` quote follows it
  (bottom-posting, interleaving) and ends reading when an unmarked quote
  follows it (top-posting);
* separators and header blocks of forwarded or quoted mail ("-----Original
  Message-----", "From: ... Sent: ...", localised) end reading;
* a signature ("-- ", the phones' "Sent from my iPhone" in many languages)
  or an explicit ``END`` line ends reading.

Every test is a match of one short line against anchored patterns without
nested repetition: the work is linear in the size of the mail, whatever it
holds (hostile mail must not stall the worker).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from pbem.store.outbox import MARKER  # atop every mail pbem sends: reading stops there

MARKER_RE = re.compile(r"^##-[^#]{0,100}-##$")
MARKER_START_RE = re.compile(r"^##- ?pbem\b", re.I)  # the marker, wrapped by a narrow client
# our mails' own structure, for mails quoted from before the marker existed
OWN_RE = re.compile(r"^(={3} pbem board ={3}|(results for your mail|итоги вашего письма|резултати от писмото ви|"
                    r"esito della tua mail):$)", re.I)  # the receipts' heading in each language

MAX_LINE = 400  # longer lines are never attribution, separator or signature lines

# the verbs of attribution lines ("... wrote:"), en de fr es pt it nl pl ru uk bg cs sk sv da no fi hu tr ro
_VERBS = (
    r"wrote|writes|schrieb|schreef|a écrit|a ecrit|escribió|escribio|escreveu|ha scritto|scrisse|"
    r"napisał\(a\)|napisała|napisał|napisal|pisze|написал\(а\)|написала|написал|пишет|пише|"
    r"написав\(ла\)|написав|написала|написа|napsal\(a\)|napsala|napsal|skrev|kirjoitti|írta|yazdı|a scris|"
    r"het volgende geschreven|geschreven|nadesłał\(a\)|nadesłał|şunu yazdı|şunları yazdı|έγραψε|έγραψαν|"
    r"כתב/ה|כתבה|כתב|كتب|كتبت"
)
# "... wrote:" ending a line; a parenthesis may follow the verb (Gmail in Portuguese:
# "pbem <x> escreveu (segunda, 23/11/2026 à(s) 10:00):")
ATTRIBUTION_END_RE = re.compile(rf"(?:(?:^|[\s>\"')\]])(?:{_VERBS})\s*(?:\(.{{0,80}}\)\s*)?|작성하였습니다|작성|쓴 글|"
                                r"写道|寫道|書きました|のメール)[:：]\s*$",
                                re.I)
# the languages that put the verb before the name: "Op 23-11-2026 om 10:00 schreef pbem:",
# "Am 23.11.2026 um 10:00 schrieb pbem:", "den 23 nov. 2026 kl. 10:00 skrev pbem:"
V2_END_RE = re.compile(r"(?:^|\s)(schrieb|schreef|skrev|kirjoitti)\s.{1,160}:\s*$|"
                       r"^wiadomość napisana przez .{1,200}:\s*$", re.I)  # Apple Mail in Polish
# "23.11.2026, 10:00, "pbem" <x@y>:" (Yandex), "Понедельник, 23 ноября 2026, 10:00 +03:00 от pbem <x@y>:" (Mail.ru)
ADDRESS_END_RE = re.compile(r"<[^<>@\s]{1,100}@[^<>\s]{1,200}>\s*:\s*$")
# the second half of an attribution wrapped inside its address: "game-1.abc@pbem.test>:"
WRAPPED_ADDRESS_END_RE = re.compile(r"^[^<>@\s]{1,100}@[^<>\s]{1,200}>.{0,200}[:：]\s*$")
# the first line of an attribution wrapped onto two lines
ATTRIBUTION_START_RE = re.compile(
    r"^(on|am|le|el|em|il giorno|il|op|w dniu|dne|den|в|на|\d{1,4}[./-]\d{1,2}[./-]\d{1,4})\b", re.I)
# what the first line of an attribution wrapped onto two lines holds: a time, a whole date, or an address
# (not "1-2" alone: "place 1-2" is a Spyrium move)
_DATE_OR_ADDR_RE = re.compile(r"\b\d{1,2}:\d{2}\b|\d{1,4}[./-]\d{1,2}[./-]\d{2,4}|@")

SEPARATOR_RE = re.compile(
    r"^(?:[-=_*~ ]{2,}\s*)?("
    r"original message|forwarded message|begin forwarded message|reply message|"
    r"ursprüngliche nachricht|original-nachricht|weitergeleitete nachricht|"
    r"message d'origine|message d’origine|message original|message transféré|"
    r"mensaje original|mensaje reenviado|mensagem original|mensagem encaminhada|"
    r"messaggio originale|messaggio inoltrato|"
    r"oorspronkelijk bericht|origineel bericht|originele bericht|doorgestuurd bericht|"
    r"wiadomość oryginalna|oryginalna wiadomość|oryginalna wiadomosc|przekazana wiadomość|"
    r"исходное сообщение|пересылаемое сообщение|пересланное сообщение|оригинальное сообщение|"
    r"оригинално съобщение|първоначално съобщение|препратено съобщение|"
    r"вихідне повідомлення|початкове повідомлення|оригінальне повідомлення|переслане повідомлення|"
    r"původní zpráva|ursprungligt meddelande|oprindelig meddelelse|opprinnelig melding|alkuperäinen viesti|"
    r"původní e-mail|přeposlaná zpráva|původní email|orijinal mesaj|özgün ileti|"
    r"αρχικό μήνυμα|προωθημένο μήνυμα|הודעה מקורית|הודעה שהועברה|الرسالة الأصلية|رسالة معاد توجيهها|"
    r"原始邮件|原始郵件|原始信件|转发的邮件|轉寄的郵件|元のメッセージ|転送されたメッセージ|원본 메시지|전달된 메시지"
    r")\s*:?(?:\s*[-=_*~ ]{2,})?$",
    re.I,
)
RULE_RE = re.compile(r"^(_{8,}|-{20,}|={20,})$")  # Outlook's rule above its header block, and the like
# the names of the header lines a client writes above a quoted or forwarded mail
_HEADER_NAMES = (
    r"from|sent|date|to|cc|subject|reply-to|"
    r"von|gesendet|datum|an|betreff|"
    r"de|envoyé|envoye|date|à|a|objet|"
    r"enviado|fecha|para|asunto|assunto|data|"
    r"da|inviato|oggetto|a|"
    r"van|verzonden|aan|onderwerp|"
    r"od|wysłano|wysłane|data|do|temat|"
    r"от|отправлено|дата|кому|тема|копия|"
    r"изпратено|до|относно|"
    r"від|надіслано|кому|тема|"
    r"från|skickat|till|ämne|fra|sendt|til|emne|lähettäjä|lähetetty|vastaanottaja|aihe|odesláno|komu|předmět"
)
HEADER_LINE_RE = re.compile(rf"^[*\s]*({_HEADER_NAMES})\s*:[*\s]*(\S.*)?$", re.I)
FROM_LINE_RE = re.compile(r"^[*\s]*(from|von|de|da|van|od|от|від|från|fra|lähettäjä)\s*:[*\s]*\S", re.I)

# "-- " and the lines phones and webmails put under a message
SIGNATURE_RE = re.compile(
    r"^(--|-- |—|"
    r"sent from (my )?.{1,120}|sent with .{1,120}|sent via .{1,120}|sent using .{1,120}|"
    r"get outlook for .{1,120}|get the .{1,120} app|"
    r"von meinem .{1,120} gesendet|von meinem/meiner .{1,120} gesendet|gesendet (von|mit|aus) .{1,120}|"
    r"envoyé (de|depuis|avec) .{1,120}|envoye (de|depuis|avec) .{1,120}|"
    r"inviato (da|dal|con) .{1,120}|enviado (desde|de|do|con|com|pelo|a partir) .{1,120}|"
    r"verzonden (vanaf|met|vanuit) .{1,120}|verstuurd (vanaf|met|vanuit) .{1,120}|"
    r"wysłane (z|przez|za pomocą) .{1,120}|wysłano (z|przez|za pomocą) .{1,120}|"
    r"отправлено (с|из|через) .{1,120}|отправлено со? .{1,120}|"
    r"изпратено (от|с|чрез) .{1,120}|надіслано (з|із|через) .{1,120}|"
    r"skickat från .{1,120}|sendt fra .{1,120}|lähetetty .{1,120}|odesláno z .{1,120}|"
    r"从我的.{1,120}发送|發自我的.{1,120}|내 .{1,120}에서 보냄"
    r")[.!]?$",
    re.I,
)
# a closing: once the player has written something, what follows it is their signature (a name, a
# phone number "030 1234-5678" that must not be read as a move)
VALEDICTION_RE = re.compile(
    r"^(best regards|kind regards|warm regards|regards|best|best wishes|cheers|thanks|thank you|many thanks|thx|"
    r"sincerely|yours|all the best|take care|talk soon|see you|bye|"
    r"mit freundlichen grüßen|mit freundlichen grüssen|mfg|viele grüße|liebe grüße|beste grüße|grüße|gruß|lg|vg|"
    r"danke|vielen dank|cordialement|bien cordialement|amitiés|bien à vous|merci|salutations|à bientôt|"
    r"saludos|un saludo|atentamente|cordialmente|gracias|muchas gracias|un abrazo|atenciosamente|abraços|"
    r"abraço|obrigado|obrigada|cumprimentos|saudações|cordiali saluti|saluti|grazie|un saluto|a presto|ciao|"
    r"met vriendelijke groet|groeten|groetjes|bedankt|mvg|pozdrawiam|z poważaniem|dzięki|dziękuję|"
    r"с уважением|спасибо|всего доброго|всего хорошего|удачи|пока|до связи|з повагою|дякую|до зустрічі|"
    r"поздрави|с уважение|благодаря)[\s,.!]*$",
    re.I,
)
END_RE = re.compile(r"^(end|конец|край|fin|ende)[.!]?$", re.I)  # not Italian "fine": English "Fine."
# lines a client puts in place of an inline image: not something the user wrote
PLACEHOLDER_RE = re.compile(r"^\[(cid|image)[:\s][^\]]{0,300}\]$", re.I)


@dataclass
class Stripped:
    text: str
    dropped: int  # lines removed as quotes, our own mail or signature


def is_quoted(line: str) -> bool:
    """'>' quoting (and '|', which some clients and gateways use); no move starts with either."""
    return line.lstrip().startswith((">", "|"))


def _stops(lines: list[str], i: int, s: str) -> bool:
    """True when line ``i`` (stripped: ``s``) begins what is not the player's
    own new text: our mail, a separator, a header block, a signature, END."""
    if MARKER_RE.match(s) or OWN_RE.match(s) or SEPARATOR_RE.match(s) or RULE_RE.match(s):
        return True
    if SIGNATURE_RE.match(s) or END_RE.match(s):
        return True
    if FROM_LINE_RE.match(s):  # a header block: From: then another header line within three lines
        seen = 0
        for nxt in lines[i + 1:i + 5]:
            t = nxt.strip()
            if not t:
                continue
            if len(t) < MAX_LINE and HEADER_LINE_RE.match(t):
                return True
            seen += 1
            if seen > 1:
                break
    return False


def _attribution(lines: list[str], i: int) -> int:
    """How many lines from ``i`` form an attribution line ("On ... wrote:"),
    or 0."""
    s = lines[i].strip()
    if _is_attribution_end(s):
        return 1
    if i + 1 < len(lines) and s and not s.endswith((":", "：")) and len(s) < MAX_LINE:
        t = lines[i + 1].strip()
        if len(t) >= MAX_LINE or not t.endswith((":", "：")):
            return 0
        if s.endswith("<") and WRAPPED_ADDRESS_END_RE.match(t):
            return 2
        if ATTRIBUTION_START_RE.match(t) and not s.endswith("<"):
            return 0  # the next line is an attribution by itself ("25.11.2026, 03:02, ... <addr>:"): not this one
        if _is_attribution_end(t) and (s.endswith("<") or ATTRIBUTION_START_RE.match(s)
                                       or _DATE_OR_ADDR_RE.search(s)):
            return 2
    return 0


def _dated_intro(lines: list[str], i: int, s: str) -> int:
    """1 when line ``i`` introduces a '>' quote below it with a date and a
    colon (The Bat!'s "You wrote 6 December 2026, 9:56:", in any language):
    an attribution pbem has no verb for."""
    if not (len(s) < MAX_LINE and s.endswith((":", "：")) and DATE_RE.search(s)):
        return 0
    j = i + 1
    while j < len(lines) and not lines[j].strip():
        j += 1
    return 1 if j < len(lines) and is_quoted(lines[j]) else 0


def _is_attribution_end(s: str) -> bool:
    """An attribution line: "... wrote:" in a language we know, or any line
    ending in a colon that names an address and a date (Tuta's "06.12.2026,
    09:56 von pbem@…:", neomutt's "* pbem <…> [2026-12-06 09:56]:")."""
    return bool(s) and len(s) < MAX_LINE and s.endswith((":", "：")) and bool(
        ATTRIBUTION_END_RE.search(s) or ADDRESS_END_RE.search(s) or V2_END_RE.search(s)
        or ("@" in s and EMAIL_RE.search(s) and DATE_RE.search(s)))


# the marks of writing direction that clients in Hebrew and Arabic put around names and addresses
_BIDI = str.maketrans({c: None for c in "\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u061c"})
# an e-mail address anywhere in a line (an address in a header block, an attribution, a post)
EMAIL_RE = re.compile(r"[\w.!#$%&'*+/=?^`{|}~-]{1,64}@[\w-]{1,63}(?:\.[\w-]{1,63}){1,8}")
# a date or a time as the clients write them: 9:56, 2026-12-06, 06.12.2026, 6. 12. 2026, 2026年12月6日, 2026년 12월
DATE_RE = re.compile(r"\b\d{1,2}:\d{2}\b|\d{4}[./-]\d{1,2}[./-]\d{1,2}|\b\d{1,2}[./-] ?\d{1,2}[./-] ?\d{2,4}\b|"
                     r"\d{1,4} ?[年년] ?\d{1,2} ?[月월]|\d{1,2} ?[月월] ?\d{1,2} ?[日일]")
# a separator of any client: a phrase between runs of dashes ("------------------ 原始邮件 ------------------",
# '-----"pbem" <…> wrote: -----', "---------- Původní e-mail ----------")
DASHED_RE = re.compile(r"^[-=_*~\u2014\u2013]{3,}\s*[^-=_*~\u2014\u2013\s][^\n]{0,100}?\s*[-=_*~\u2014\u2013]{3,}\s*:?$")
# the labels of the header lines clients write above a quoted mail, in the languages of the clients pbem's
# players use (lower-case; any other label counts only with an address or a date in its line)
HEADER_LABELS = frozenset(_HEADER_NAMES.split("|")) | frozenset((
    "发件人", "寄件人", "寄件者", "收件人", "收件者", "发送时间", "發送時間", "寄件日期", "发送日期", "日期", "时间", "時間",
    "主题", "主題", "主旨", "抄送", "副本", "抄送人",  # zh (QQ Mail, Foxmail, NetEase, Outlook and Gmail in Chinese)
    "差出人", "送信者", "送信日時", "送信日", "日時", "日付", "宛先", "件名", "送信済み",  # ja
    "보낸 사람", "보낸사람", "받는 사람", "받는사람", "보낸 날짜", "날짜", "제목", "참조",  # ko
    "datum odeslání", "kopie", "komu", "od", "předmět", "odesláno",  # cs (Seznam, Outlook)
    "dw", "wysłany", "wysłano", "kopia",  # pl
    "kimden", "kime", "gönderildi", "gönderilme tarihi", "tarih", "konu", "bilgi", "gönderen",  # tr
    "από", "προς", "στάλθηκε", "ημερομηνία", "θέμα", "κοιν", "κοιν.",  # el
    "מאת", "אל", "נשלח", "תאריך", "נושא", "עותק",  # he
    "من", "إلى", "الى", "أرسل", "تم الإرسال", "التاريخ", "الموضوع", "نسخة",  # ar
    "sent by", "cc", "bcc", "reply to", "antwort an", "kopie an",
))
_MAX_LABEL = 24


def _label(s: str) -> str | None:
    """The label of a line "Label: value" (the label lower-cased, without a
    bold client's asterisks), or None."""
    head = s[:_MAX_LABEL + 4]
    cut = min((k for k in (head.find(":"), head.find("：")) if k > 0), default=-1)
    if cut <= 0:
        return None
    label = " ".join(head[:cut].strip(" *").split()).casefold()
    return label if label and len(label) <= _MAX_LABEL else None


def is_header_like(s: str) -> bool:
    """A line a client writes in the header block above a quoted mail: a
    known label ("From:", "发件人:"), any label with an address or a date, an
    address or our subject tag anywhere, a separator, an attribution."""
    if SEPARATOR_RE.match(s) or RULE_RE.match(s) or DASHED_RE.match(s) or _is_attribution_end(s):
        return True
    if "@" in s and EMAIL_RE.search(s):
        return True
    if "[pbem #" in s.casefold():
        return True
    label = _label(s)
    return label is not None and (label in HEADER_LABELS or bool(DATE_RE.search(s)))


def _is_strong(s: str) -> bool:
    """A header line that no player's move or talk looks like: an address, a
    separator, an attribution, our subject tag, a known label with a date (a
    date alone may well be talk: "I'll be late: 10:30 tomorrow?")."""
    return bool(("@" in s and EMAIL_RE.search(s)) or SEPARATOR_RE.match(s) or RULE_RE.match(s)
                or DASHED_RE.match(s) or _is_attribution_end(s) or "[pbem #" in s.casefold()
                or (_label(s) in HEADER_LABELS and DATE_RE.search(s)))


MAX_HEADER_BLOCK = 16  # lines; no client writes a longer header block


def own_key(line: str) -> str:
    """A line as compared with the lines of our own mails: spaces collapsed,
    without the asterisks or underscores a client puts around bold text."""
    return " ".join(line.split()).strip("*_ ").casefold()


MIN_OWN = 16  # characters: a shorter line of our mail ("Round 1", "--") may well be typed by a player


def own_lines(*texts: str) -> frozenset[str]:
    """The lines of our own mails (their text parts) that a reply may quote
    without any mark: what ``strip_reply`` takes as ``ours``. Only the
    sentences of a mail (its summary, greeting, paragraphs, footer), never
    its indented or listed lines: a board lists moves a player may well copy
    into the reply ("  C fountain_of_youth")."""
    out = set()
    for text in texts:
        for line in (text or "").splitlines():
            if not line or line[0] in " \t-*>|•" or line[0].isdigit():
                continue
            key = own_key(line)
            if MIN_OWN <= len(key) < MAX_LINE:
                out.add(key)
    return frozenset(out)


def _is_ours(s: str, ours: frozenset[str] | set[str]) -> bool:
    return bool(MARKER_RE.match(s) or MARKER_START_RE.match(s) or OWN_RE.match(s)) or (
        bool(ours) and own_key(s) in ours)


# a quote mark of the clients that quote with the writer's initials or a mark of their own ("pb> ", "» ",
# ": "): known by our marker quoted with it
_MARKED_MARKER_RE = re.compile(r"^\s*([^\s#>|]{0,4}[>:»|\]])\s?##- ?pbem\b")


def _own_quote_marks(lines: list[str]) -> list[str]:
    """The lines with a client's own quote mark (found before our quoted
    marker: "pb> ##- pbem: ...") quoted with '>' instead, so that they are
    read as the quote they are; IAWW's "m>E" is never one (no marker)."""
    mark = None
    for line in lines:
        if "##-" in line and len(line) < MAX_LINE:
            m = _MARKED_MARKER_RE.match(line)
            if m and m.group(1) not in (">", "|"):
                mark = m.group(1)
                break
    if mark is None:
        return lines
    return [">" + ln.lstrip()[len(mark):] if ln.lstrip().startswith(mark) else ln for ln in lines]


def _quote_start(lines: list[str], ours) -> int:
    """Where the quoted older mail begins when it is not marked by '>': at the
    first line of ours (the marker, or a line of the mail answered that the
    next lines confirm), and up from there over the header block a client
    wrote above it (``_block_top``). ``len(lines)`` when nothing of ours is
    unmarked."""
    n = len(lines)
    # our marker in the reply (quoted or not) alone says where our mail is; the other lines of ours are
    # looked for only in a reply that lost it
    search = frozenset() if any("##- pbem" in ln for ln in lines) else ours
    for i, line in enumerate(lines):
        s = line.strip()
        if not s or len(s) >= MAX_LINE or is_quoted(line):
            continue
        if MARKER_RE.match(s) or MARKER_START_RE.match(s) or OWN_RE.match(s):
            return _block_top(lines, i, ours, marker=True)
        if search and own_key(s) in search and _confirmed(lines, i, search):
            return _block_top(lines, i, ours, marker=False)
    return n


def _confirmed(lines: list[str], i: int, ours) -> bool:
    """A line of our mail at ``i`` is the quote's, not a line the player
    copied, when another of ours follows within the next few lines."""
    seen = 0
    for j in range(i + 1, len(lines)):  # no slice: a long mail of candidates stays linear
        line = lines[j]
        s = line.strip()
        if not s:
            continue
        if len(s) < MAX_LINE and not is_quoted(line) and _is_ours(s, ours):
            return True
        seen += 1
        if seen >= 6:
            return False
    return False


def _block_top(lines: list[str], first: int, ours, marker: bool) -> int:
    """The first line of what a client wrote above our own text at ``first``:
    the header block (header-looking lines with blank lines between, with an
    address, a date or a separator among them), and lines of ours. Right
    above the marker, one line may be the summary of an older mail of ours
    (which put its summary first), when a header block stands above it."""
    top, j, strong, looked = first, first - 1, False, 0
    summary = None  # the one line right above the marker that may be an older mail's summary
    while j >= 0 and looked < MAX_HEADER_BLOCK:
        line = lines[j]
        s = line.strip()
        if not s:
            j -= 1
            continue
        looked += 1
        if len(s) < MAX_LINE and not is_quoted(line) and (_is_ours(s, ours) or is_header_like(s)):
            strong = strong or _is_strong(s) or _is_ours(s, ours)
            top = j
        elif marker and summary is None and top == first and len(s) < MAX_LINE and not is_quoted(line):
            summary = j  # kept only if a header block stands above it
        else:
            break
        j -= 1
    if summary is not None and top == first:
        return first  # nothing header-like above the line: it is the player's
    if top == first or not strong:
        return first
    return min(top, summary) if summary is not None else top


def _header_block(lines: list[str], i: int, n: int, ours) -> str | None:
    """Whether a header block of a quoted mail starts at ``i`` (header-looking
    lines, an address, a date or a separator among them), and what to do:
    "skip" when a '>' quote follows it (the quote is skipped too: what comes
    after it may be the player's), "quote" when our own text follows it or
    it stands alone (three or more header lines, two with a label): the
    quoted mail begins there. None when the lines are not one."""
    j, lines_in, labels, strong = i, 0, 0, False
    while j < n and lines_in < MAX_HEADER_BLOCK:
        s = lines[j].strip()
        if not s:
            j += 1
            continue
        if len(s) >= MAX_LINE or is_quoted(lines[j]) or not is_header_like(s):
            break
        lines_in += 1
        labels += _label(s) is not None
        strong = strong or _is_strong(s)
        j += 1
    if not strong:
        return None
    while j < n and not lines[j].strip():
        j += 1
    if j < n and is_quoted(lines[j]):
        return "skip"
    if j < n and len(lines[j].strip()) < MAX_LINE and _is_ours(lines[j].strip(), ours):
        return "quote"
    return "quote" if lines_in >= 3 and labels >= 2 else None


def strip_reply(text: str, ours: frozenset[str] | set[str] = frozenset()) -> Stripped:
    """The player's own new text. ``ours``: the lines of the mails the reply
    answers (``own_lines``), wherever the pipeline still has them."""
    lines = _own_quote_marks((text or "").translate(_BIDI).split("\n"))
    total = sum(1 for ln in lines if ln.strip())
    kept: list[str] = []
    n = _quote_start(lines, ours)
    i = 0
    while i < n:
        line = lines[i]
        s = line.strip()
        if not s:
            kept.append("")
            i += 1
            continue
        if is_quoted(line) or (len(s) < MAX_LINE and PLACEHOLDER_RE.match(s)):
            i += 1
            continue
        if len(s) < MAX_LINE and is_header_like(s):
            block = _header_block(lines, i, n, ours)
            if block == "quote":  # above an unmarked quote of ours, or standing alone: the quoted mail begins
                break
            if block == "skip":  # above a '>' quote: not typed (what follows the quote may be)
                while i < n and not is_quoted(lines[i]):
                    i += 1
                continue
        if len(s) < MAX_LINE and _stops(lines, i, s):
            break
        if VALEDICTION_RE.match(s) and any(k.strip() for k in kept):
            kept.append(line)  # shown to the player as ignored talk; what follows is the signature
            break
        span = _attribution(lines, i) or _dated_intro(lines, i, s)
        if span:
            j = i + span
            while j < n and not lines[j].strip():
                j += 1
            if j < n and is_quoted(lines[j]):  # bottom-posted or interleaved: the quote is marked
                i = j
                continue
            break  # top-posted: what follows is an unmarked quote
        kept.append(line)
        i += 1
    body = "\n".join(kept).strip("\n")
    left = sum(1 for ln in kept if ln.strip())
    return Stripped(body, max(0, total - left))


def without_addresses(text: str, keep: set[str] | frozenset[str]) -> str:
    """``text`` with every e-mail address but those in ``keep`` (the
    sender's own, lower-case) replaced by "[…]": the last check before
    talk from a mail is posted, so that no header block of a quoted mail
    that pbem did not recognise publishes anyone else's address."""
    if "@" not in text:
        return text
    return EMAIL_RE.sub(lambda m: m.group(0) if m.group(0).lower() in keep else "[…]", text)
