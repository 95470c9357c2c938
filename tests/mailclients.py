"""Replies written the way real mail clients write them.

Each builder takes a mail pbem really sent (``Original``, made from an
outbox row), the player (``Player``) and what the player typed
(``Answer``), and returns the raw bytes of the reply as that client puts
them on the wire: its MIME structure, charsets and transfer encodings, its
attribution or header block in the player's language, its quoting (``> ``
lines, ``<blockquote>``, or the quoted mail as a sibling after a header
block), its signature, and its habits (smart punctuation, autocapitalised
lines, format=flowed soft breaks). The formats follow what the clients
write (attribution strings as in the clients' locale files and in the
public fixtures of reply parsers); nothing here is copied from them.

Posting styles: ``top`` (the answer above the quote), ``bottom`` (below it),
``interleaved`` (answer parts between quoted parts of pbem's mail),
``html`` (an HTML-only mail; Outlook).
"""
from __future__ import annotations

import base64
import hashlib
import quopri
import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from email.header import Header
from email.utils import format_datetime, formataddr, parseaddr
from html import escape

# ------------------------------------------------------------------ inputs


@dataclass(frozen=True)
class Original:
    """The pbem mail being answered."""
    subject: str
    text: str
    html: str | None
    message_id: str
    from_addr: str  # pbem's From: the command address
    reply_to: str  # where a reply goes: Reply-To, else From
    to_addr: str  # the player it went to
    sent: datetime  # aware
    from_name: str = "pbem"

    @classmethod
    def from_outbound(cls, row, command_address: str, sent: datetime | None = None) -> "Original":
        headers = dict(row.headers or {})
        reply_to = headers.get("Reply-To") or command_address
        when = sent or row.created_at
        if when.tzinfo is None:
            when = when.replace(tzinfo=timezone.utc)
        return cls(subject=row.subject, text=row.body_text, html=row.body_html, message_id=row.message_id,
                   from_addr=command_address, reply_to=reply_to, to_addr=row.to_addr, sent=when)

    @property
    def to_reply(self) -> str:
        """The To of the reply as the clients write it: Reply-To (bare), else "pbem <addr>"."""
        if self.reply_to.lower() != self.from_addr.lower():
            return self.reply_to
        return formataddr((self.from_name, self.from_addr))


@dataclass(frozen=True)
class Player:
    name: str  # display name in From (and the sign-off, unless the answer has its own)
    email: str


@dataclass
class Answer:
    """What the player typed. ``lines`` is the whole answer (top, bottom and
    HTML-only styles); ``inline`` the parts of an interleaved answer, each
    placed after a part of pbem's mail: "" (before the quote), "head" (title,
    greeting, headline), "results", "board", "help" (or the last part)."""
    lines: list[str]
    inline: list[tuple[str, list[str]]] = field(default_factory=list)


# ------------------------------------------------------------------ locale tables

TZ_HOURS = {"en": -5, "en-GB": 0, "de": 1, "fr": 1, "it": 1, "es": 1, "nl": 1, "pl": 1, "pt": -3, "ru": 3,
            "uk": 2, "bg": 2, "zh": 8, "ja": 9, "ko": 9, "cs": 1, "tr": 3, "el": 2, "he": 2, "ar": 3}

DOW_SHORT = {
    "en": "Mon Tue Wed Thu Fri Sat Sun", "de": "Mo Di Mi Do Fr Sa So", "fr": "lun mar mer jeu ven sam dim",
    "es": "lun mar mié jue vie sáb dom", "pt": "seg ter qua qui sex sáb dom", "it": "lun mar mer gio ven sab dom",
    "nl": "ma di wo do vr za zo", "pl": "pon wt śr czw pt sob niedz", "ru": "пн вт ср чт пт сб вс",
    "uk": "пн вт ср чт пт сб нд", "bg": "пн вт ср чт пт сб нд",
    "zh": "周一 周二 周三 周四 周五 周六 周日", "ja": "月 火 水 木 金 土 日", "ko": "월 화 수 목 금 토 일",
    "cs": "po út st čt pá so ne", "tr": "Pzt Sal Çar Per Cum Cmt Paz", "el": "Δευ Τρί Τετ Πέμ Παρ Σάβ Κυρ",
    "he": "יום_ב׳ יום_ג׳ יום_ד׳ יום_ה׳ יום_ו׳ שבת יום_א׳", "ar": "الاثنين الثلاثاء الأربعاء الخميس الجمعة السبت الأحد",
}
DOW_LONG = {
    "en": "Monday Tuesday Wednesday Thursday Friday Saturday Sunday",
    "de": "Montag Dienstag Mittwoch Donnerstag Freitag Samstag Sonntag",
    "fr": "lundi mardi mercredi jeudi vendredi samedi dimanche",
    "es": "lunes martes miércoles jueves viernes sábado domingo",
    "it": "lunedì martedì mercoledì giovedì venerdì sabato domenica",
    "nl": "maandag dinsdag woensdag donderdag vrijdag zaterdag zondag",
    "pl": "poniedziałek wtorek środa czwartek piątek sobota niedziela",
    "ru": "понедельник вторник среда четверг пятница суббота воскресенье",
    "mailru": "Понедельник Вторник Среда Четверг Пятница Суббота Воскресенье",
    "qq": "星期一 星期二 星期三 星期四 星期五 星期六 星期天",
    "tr": "Pazartesi Salı Çarşamba Perşembe Cuma Cumartesi Pazar",
    "el": "Δευτέρα Τρίτη Τετάρτη Πέμπτη Παρασκευή Σάββατο Κυριακή",
    "he": "יום_שני יום_שלישי יום_רביעי יום_חמישי יום_שישי שבת יום_ראשון",
    "ar": "الاثنين الثلاثاء الأربعاء الخميس الجمعة السبت الأحد",
}
MONTH_SHORT = {
    "en": "Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec",
    "de": "Jan Feb März Apr Mai Juni Juli Aug Sept Okt Nov Dez",
    "fr": "janv févr mars avr mai juin juil août sept oct nov déc",
    "es": "ene feb mar abr may jun jul ago sept oct nov dic",
    "pt": "jan fev mar abr mai jun jul ago set out nov dez",
    "it": "gen feb mar apr mag giu lug ago set ott nov dic",
    "nl": "jan feb mrt apr mei jun jul aug sep okt nov dec",
    "pl": "sty lut mar kwi maj cze lip sie wrz paź lis gru",
    "ru": "янв. февр. мар. апр. мая июн. июл. авг. сент. окт. нояб. дек.",
    "uk": "січ. лют. бер. квіт. трав. черв. лип. серп. вер. жовт. лист. груд.",
    "tr": "Oca Şub Mar Nis May Haz Tem Ağu Eyl Eki Kas Ara",
    "el": "Ιαν Φεβ Μαρ Απρ Μαΐ Ιουν Ιουλ Αυγ Σεπ Οκτ Νοε Δεκ",
    "he": "בינו׳ בפבר׳ במרץ באפר׳ במאי ביוני ביולי באוג׳ בספט׳ באוק׳ בנוב׳ בדצמ׳",
}
MONTH_LONG = {
    "en": "January February March April May June July August September October November December",
    "de": "Januar Februar März April Mai Juni Juli August September Oktober November Dezember",
    "fr": "janvier février mars avril mai juin juillet août septembre octobre novembre décembre",
    "es": "enero febrero marzo abril mayo junio julio agosto septiembre octubre noviembre diciembre",
    "pt": "janeiro fevereiro março abril maio junho julho agosto setembro outubro novembro dezembro",
    "it": "gennaio febbraio marzo aprile maggio giugno luglio agosto settembre ottobre novembre dicembre",
    "nl": "januari februari maart april mei juni juli augustus september oktober november december",
    "pl": "stycznia lutego marca kwietnia maja czerwca lipca sierpnia września października listopada grudnia",
    "ru": "января февраля марта апреля мая июня июля августа сентября октября ноября декабря",
    "tr": "Ocak Şubat Mart Nisan Mayıs Haziran Temmuz Ağustos Eylül Ekim Kasım Aralık",
    "el": "Ιανουαρίου Φεβρουαρίου Μαρτίου Απριλίου Μαΐου Ιουνίου Ιουλίου Αυγούστου Σεπτεμβρίου Οκτωβρίου "
          "Νοεμβρίου Δεκεμβρίου",
    "he": "ינואר פברואר מרץ אפריל מאי יוני יולי אוגוסט ספטמבר אוקטובר נובמבר דצמבר",
    "ar": "يناير فبراير مارس أبريل مايو يونيو يوليو أغسطس سبتمبر أكتوبر نوفمبر ديسمبر",
}


def _dow(loc: str, d: datetime, long: bool = False) -> str:
    return (DOW_LONG if long else DOW_SHORT)[loc].split()[d.weekday()].replace("_", " ")


def _mon(loc: str, d: datetime, long: bool = False) -> str:
    return (MONTH_LONG if long else MONTH_SHORT)[loc].split()[d.month - 1]


def _dotted_mon(loc: str, d: datetime) -> str:
    """An abbreviated month with its full stop (de, fr, pt), the full name without one."""
    short, full = _mon(loc, d), MONTH_LONG.get(loc, MONTH_SHORT[loc]).split()[d.month - 1]
    return short if short == full or short.endswith(".") else short + "."


def local(d: datetime, loc: str) -> datetime:
    return d.astimezone(timezone(timedelta(hours=TZ_HOURS.get(loc, TZ_HOURS.get(loc.split("-")[0], 0)))))


def _ampm(d: datetime) -> str:
    return f"{(d.hour % 12) or 12}:{d.minute:02d} {'AM' if d.hour < 12 else 'PM'}"


def _hm(d: datetime) -> str:
    return f"{d.hour:02d}:{d.minute:02d}"


# ------------------------------------------------------------------ what the player writes

GREETING = {"en": "Hi all,", "de": "Hallo zusammen,", "fr": "Bonjour à tous,", "es": "¡Hola a todos!",
            "pt": "Oi pessoal,", "it": "Ciao a tutti,", "nl": "Hoi allemaal,", "pl": "Cześć wszystkim,",
            "ru": "Привет!", "uk": "Привіт усім!", "bg": "Здравейте,",
    "zh": "大家好，",
    "ja": "皆さん、こんにちは。",
    "ko": "안녕하세요,",
    "cs": "Ahoj všichni,",
    "tr": "Herkese merhaba,",
    "el": "Γεια σε όλους,",
    "he": "שלום לכולם,",
    "ar": "مرحبا بالجميع،",
}
THANKS = {"en": "Thanks!", "de": "Danke!", "fr": "Merci !", "es": "¡Gracias!", "pt": "Valeu!", "it": "Grazie!",
          "nl": "Bedankt!", "pl": "Dzięki!", "ru": "Ой, понятно.", "uk": "Дякую!", "bg": "Благодаря!",
    "zh": "谢谢！",
    "ja": "ありがとう！",
    "ko": "감사합니다!",
    "cs": "Díky!",
    "tr": "Teşekkürler!",
    "el": "Ευχαριστώ!",
    "he": "תודה!",
    "ar": "شكرا!",
}
CHEER = {"en": "Good one, {who}.", "de": "Schöner Zug, {who}!", "fr": "Joli coup, {who} !",
         "es": "¡Buena jugada, {who}!", "pt": "Boa jogada, {who}!", "it": "Bella mossa, {who}!",
         "nl": "Mooie zet, {who}!", "pl": "Ładny ruch, {who}!", "ru": "Хороший ход, {who}!",
         "uk": "Гарний хід, {who}!", "bg": "Хубав ход, {who}!",
    "zh": "好棋，{who}！",
    "ja": "いい手ですね、{who}さん。",
    "ko": "좋은 수예요, {who}!",
    "cs": "Pěkný tah, {who}!",
    "tr": "Güzel hamle, {who}!",
    "el": "Ωραία κίνηση, {who}!",
    "he": "מהלך יפה, {who}!",
    "ar": "نقلة جميلة يا {who}!",
}
# a plain answer to table talk
TALK_BACK = {"en": "Ha! I can read that, {who}.", "de": "Ha! Das kann ich lesen, {who}.",
             "fr": "Ha ! Je sais lire, {who}.", "es": "¡Ja! Eso lo leo yo, {who}.", "pt": "Ha! Eu sei ler, {who}.",
             "it": "Ah! So leggere, {who}.", "nl": "Ha! Dat kan ik lezen, {who}.", "pl": "Ha! Umiem czytać, {who}.",
             "ru": "Ха! Я это читаю, {who}.", "uk": "Ха! Я це читаю, {who}.", "bg": "Ха! Мога да чета, {who}.",
    "zh": "哈！我看得懂，{who}。",
    "ja": "はは、読めますよ、{who}さん。",
    "ko": "하! 읽을 수 있어요, {who}.",
    "cs": "Ha! To umím přečíst, {who}.",
    "tr": "Ha! Bunu okuyabiliyorum, {who}.",
    "el": "Χα! Μπορώ να το διαβάσω, {who}.",
    "he": "הא! אני יודעת לקרוא את זה, {who}.",
    "ar": "ها! أستطيع قراءة ذلك يا {who}.",
}
CLOSING = {"en": "Cheers,", "de": "Viele Grüße", "fr": "Bonne journée,", "es": "Saludos,", "pt": "Abraços,",
           "it": "Saluti,", "nl": "Groetjes,", "pl": "Pozdrawiam,", "ru": "С уважением,", "uk": "З повагою,",
           "bg": "Поздрави,",
    "zh": "祝好，",
    "ja": "よろしくお願いします。",
    "ko": "감사합니다.",
    "cs": "S pozdravem,",
    "tr": "Saygılarımla,",
    "el": "Φιλικά,",
    "he": "בברכה,",
    "ar": "مع التحية،",
}
# the players' own names as they sign (the pbem account names are Ann, Bob, Cat, Dan)
SIGN = {
    "ru": {"Ann": "Аня", "Bob": "Борис", "Cat": "Катя", "Dan": "Даня"},
    "uk": {"Ann": "Ганна", "Bob": "Богдан", "Cat": "Катя", "Dan": "Данило"},
    "bg": {"Ann": "Ани", "Bob": "Боби", "Cat": "Кати", "Dan": "Дани"},
    "es": {"Ann": "Ana"}, "pt": {"Ann": "Ana"}, "it": {"Ann": "Anna", "Cat": "Caterina"},
    "de": {"Ann": "Anna"}, "pl": {"Ann": "Ania", "Cat": "Kasia"},
}


def sign_name(name: str, loc: str) -> str:
    return SIGN.get(loc.split("-")[0], {}).get(name, name)


# ------------------------------------------------------------------ habits of keyboards and editors

_DQ = re.compile(r'"([^"]*)"')


def smarten(line: str, capitalize: bool = True) -> str:
    """What Word, Outlook and the iOS keyboard make of a typed line: curly
    double quotes and apostrophes, and a capital at the start of a line."""
    out = _DQ.sub(lambda m: "\u201c" + m.group(1) + "\u201d", line)
    out = re.sub(r"(?<=\w)'(?=\w)", "\u2019", out)
    out = re.sub(r"(^|\s)'(?=\w)", "\\1\u2018", out).replace("'", "\u2019")
    if capitalize and out[:1].islower():
        out = out[0].upper() + out[1:]
    return out


# ------------------------------------------------------------------ pbem's mail in parts


SEGMENTS = ("head", "results", "board", "help", "footer")


def text_segments(text: str) -> list[tuple[str, list[str]]]:
    """pbem's text body cut into its parts (templates/mail/message.txt):
    head, results, board, help, footer."""
    lines = text.replace("\r\n", "\n").split("\n")
    while lines and not lines[-1].strip():
        lines.pop()
    out: list[tuple[str, list[str]]] = []
    kind = "head"
    footer_at = max((i for i, ln in enumerate(lines) if ln.rstrip() == "--"), default=len(lines))
    for i, ln in enumerate(lines):
        if i == footer_at:
            kind = "footer"
        elif kind != "footer":
            if ln.startswith("Results for your mail:"):
                kind = "results"
            elif ln.startswith("=== pbem board ==="):
                kind = "board"
            elif kind in ("head", "results", "board") and (ln.startswith("Your move. ") or ln.startswith("Commands (")):
                kind = "help"
        if not out or out[-1][0] != kind:
            out.append((kind, []))
        out[-1][1].append(ln)
    return out


def _wrap_div(html: str):
    import lxml.html

    doc = lxml.html.document_fromstring(html)
    wraps = doc.find_class("wrap")
    return doc, (wraps[0] if wraps else doc.body)


def html_segments(html: str) -> tuple[str, list[tuple[str, str]]]:
    """pbem's HTML body cut into the same parts: (the start tag of its
    container div, [(part, outer HTML of its elements)])."""
    import lxml.html

    doc, wrap = _wrap_div(html)
    out: list[tuple[str, str]] = []
    for child in wrap:
        cls = (child.get("class") or "").split()
        if child.tag in ("h1", "p") and not out:
            kind = "head"
        elif "results" in cls:
            kind = "results"
        elif "board" in cls:
            kind = "board"
        elif "help" in cls:
            kind = "help"
        elif "footer" in cls:
            kind = "footer"
        else:
            kind = out[-1][0] if out else "head"
        piece = lxml.html.tostring(child, encoding="unicode")
        if out and out[-1][0] == kind:
            out[-1] = (kind, out[-1][1] + piece)
        else:
            out.append((kind, piece))
    attrs = "".join(f' {k}="{escape(v)}"' for k, v in wrap.attrib.items())
    return f"<div{attrs}>", out


def body_inner(html: str) -> str:
    """The content of pbem's <body> (what a client keeps of a quoted mail)."""
    import lxml.html

    doc = lxml.html.document_fromstring(html)
    return "".join(lxml.html.tostring(c, encoding="unicode") for c in doc.body)


_BLOCKS = {"p", "div", "h1", "h2", "h3", "h4", "tr", "table", "pre", "li", "ul", "ol", "blockquote", "hr"}


def html_to_plain(html: str) -> str:
    """An HTML mail as a client's plain-text part quotes it (Gmail, Apple,
    Samsung, Proton): one line per block and per table row, cells apart,
    bold as *bold*, links as text <url>."""
    import lxml.html

    frag = lxml.html.fragment_fromstring(html, create_parent="div")
    out: list[str] = []
    cur: list[str] = []

    def flush():
        line = re.sub(r"[ \t\u00a0]+", " ", "".join(cur)).strip()
        cur.clear()
        if line or (out and out[-1] != ""):
            out.append(line)

    def walk(el, pre=False):
        tag = el.tag if isinstance(el.tag, str) else ""
        if tag in ("style", "script", "head", "title"):
            return
        if tag in _BLOCKS:
            flush()
        if tag == "br":
            flush() if not pre else cur.append("\n")
        bold = tag in ("b", "strong")
        if bold:
            cur.append("*")
        if el.text:
            text = el.text if (pre or tag == "pre") else el.text.replace("\n", " ")
            cur.append(text)
        for child in el:
            walk(child, pre or tag == "pre")
            if tag in ("tr",) and child.tag in ("td", "th"):
                cur.append("  ")
            if child.tail:
                cur.append(child.tail if (pre or tag == "pre") else child.tail.replace("\n", " "))
        if bold:
            cur.append("*")
        if tag == "pre":
            text = "".join(cur)
            cur.clear()
            out.extend(text.strip("\n").split("\n"))
            out.append("")
        elif tag in _BLOCKS:
            flush()

    walk(frag)
    flush()
    while out and out[-1] == "":
        out.pop()
    return "\n".join(out)


def quote_lines(lines: list[str], prefix: str = "> ", blank: str = ">") -> list[str]:
    """Quote lines as Gmail, Apple Mail and most clients do: ``prefix`` before
    each line (so a line already quoted becomes '> > x'), ``blank`` for an
    empty line."""
    return [prefix + ln.rstrip() if ln.strip() else blank for ln in lines]


def _tb_quote(lines: list[str]) -> list[str]:
    """Thunderbird's quoting: '> ' before text, '>' before a blank line or another '>'."""
    out = []
    for ln in lines:
        ln = ln.rstrip()
        out.append(">" if not ln else (">" + ln if ln.startswith(">") else "> " + ln))
    return out


def interleave_text(orig_lines: list[tuple[str, list[str]]], answer: Answer, quote) -> list[str]:
    """Quoted parts of pbem's mail with the answer's parts after them."""
    after: dict[str, list[str]] = {}
    for where, lines in answer.inline:
        after.setdefault(where if where in SEGMENTS or where == "" else "help", []).extend(lines)
    present = [k for k, _ in orig_lines]
    # a part named after a segment the mail lacks goes after the last segment before the footer
    last_body = [k for k in present if k != "footer"][-1] if present else ""
    for where in list(after):
        if where and where not in present:
            after.setdefault(last_body, []).extend(after.pop(where))
    out: list[str] = []
    if after.get(""):
        out += after[""] + [""]
    for kind, lines in orig_lines:
        body = list(lines)
        while body and not body[-1].strip():
            body.pop()
        out += quote(body)
        if after.get(kind):
            out += [""] + after[kind] + [""]
    return out


# ------------------------------------------------------------------ encodings


def _hash(seed: str, n: int = 16) -> str:
    return hashlib.sha256(seed.encode()).hexdigest()[:n]


def _uuid(seed: str, upper: bool = False) -> str:
    h = _hash(seed, 32)
    u = f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:32]}"
    return u.upper() if upper else u


def hdr(value: str, charset: str = "utf-8") -> str:
    """A header value: as is when ASCII, else RFC 2047 encoded words in ``charset``."""
    if value.isascii():
        return value
    return Header(value, charset).encode(maxlinelen=998)


def addr(name: str, email: str, charset: str = "utf-8", quote_ascii: bool = False) -> str:
    if not name:
        return email
    if name.isascii():
        return (f'"{name}" <{email}>' if quote_ascii else formataddr((name, email)))
    return f"{hdr(name, charset)} <{email}>"


def qp(text: str, charset: str, html: bool = False) -> str:
    """Quoted-printable in ``charset``; in HTML a character the charset lacks
    becomes a numeric character reference, as Outlook writes it."""
    data = text.replace("\r\n", "\n").encode(charset, "xmlcharrefreplace" if html else "strict")
    return quopri.encodestring(data, quotetabs=False).decode("ascii")


def b64(text: str, charset: str = "utf-8") -> str:
    return base64.encodebytes(text.replace("\r\n", "\n").replace("\n", "\r\n").encode(charset)).decode("ascii")


def flowed(lines: list[str], width: int = 72, delsp: bool = False) -> list[str]:
    """RFC 3676 format=flowed: a long paragraph line is cut at spaces into
    lines of at most ``width`` characters, each but the last ending in a
    space (a soft break; with DelSp=yes one more space, deleted by the
    reader). Quoted lines keep their '>' prefix and are not rewrapped (they
    are fixed lines of the older mail). Lines starting with a space, '>' (in
    the new text) or 'From ' are space-stuffed; the signature separator stays."""
    out: list[str] = []
    for raw in lines:
        if raw == "-- ":
            out.append(raw)
            continue
        if raw.startswith(">"):
            out.append(raw.rstrip(" "))
            continue
        line = raw.rstrip(" ")
        if line.startswith((" ", "From ")):
            line = " " + line
        if len(line) <= width:
            out.append(line)
            continue
        words = line.split(" ")
        cur = ""
        for w in words:
            cand = (cur + " " + w) if cur else w
            if cur and len(cand) + 1 > width:
                out.append(cur + " " + (" " if delsp else ""))
                cur = w
            else:
                cur = cand
        out.append(cur)
    return out


def unflow(text: str, delsp: bool = False) -> str:
    """Read format=flowed text back (for the builders' own tests)."""
    out: list[str] = []
    buf = None
    for raw in text.split("\n"):
        line = raw.rstrip("\r")
        depth = len(line) - len(line.lstrip(">"))
        body = line[depth:]
        if body.startswith(" "):
            body = body[1:]
        soft = body.endswith(" ") and body != "-- "
        if soft and delsp:
            body = body[:-1]
        if buf is not None and buf[0] == depth:
            buf = (depth, buf[1] + body)
        else:
            if buf is not None:
                out.append(">" * buf[0] + (" " if buf[0] and buf[1] else "") + buf[1])
            buf = (depth, body)
        if not soft:
            out.append(">" * buf[0] + (" " if buf[0] and buf[1] else "") + buf[1])
            buf = None
    if buf is not None:
        out.append(">" * buf[0] + (" " if buf[0] and buf[1] else "") + buf[1])
    return "\n".join(out)


_PREFIX = re.compile(r"^\s*((re|aw|sv|odp|r|antw|ответ)\s?:\s*)+", re.I)


def reply_subject(prefix: str, subject: str) -> str:
    """The subject of a reply: the client's prefix once, in place of the ones already there."""
    return prefix + _PREFIX.sub("", subject)


def _headers(pairs: list[tuple[str, str]]) -> str:
    return "".join(f"{k}: {v}\n" for k, v in pairs if v is not None)


def _crlf(msg: str | bytes) -> bytes:
    data = msg.encode("utf-8") if isinstance(msg, str) else msg
    return data.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")


def _part(ctype: str, cte: str, body: str) -> str:
    return f"Content-Type: {ctype}\nContent-Transfer-Encoding: {cte}\n\n{body.rstrip(chr(10))}\n"


def _multipart(boundary: str, parts: list[str]) -> str:
    return "".join(f"--{boundary}\n{p}\n" for p in parts) + f"--{boundary}--\n"


def _refs(orig: Original) -> list[tuple[str, str]]:
    return [("In-Reply-To", orig.message_id), ("References", orig.message_id)]


def _date(seed: str, orig: Original, loc: str) -> str:
    delay = 7 + int(_hash("delay" + seed, 4), 16) % 40  # minutes after pbem's mail
    return format_datetime(local(orig.sent + timedelta(minutes=delay, seconds=int(_hash(seed, 2), 16) % 60), loc))


# ------------------------------------------------------------------ Gmail

GMAIL_SUBJECT = "Re: "


def gmail_attribution(orig: Original, loc: str) -> str:
    d = local(orig.sent, loc)
    n, a = orig.from_name, orig.from_addr
    return {
        "en": f"On {_dow('en', d)}, {_mon('en', d)} {d.day}, {d.year} at {_ampm(d)} {n} <{a}> wrote:",
        "en-GB": f"On {_dow('en', d)}, {d.day} {_mon('en', d)} {d.year} at {_hm(d)}, {n} <{a}> wrote:",
        "es": f"El {_dow('es', d)}, {d.day} {_mon('es', d)} {d.year} a las {d.hour}:{d.minute:02d}, {n} (<{a}>) "
              f"escribió:",
        "pt": f"Em {_dow('pt', d)}., {d.day} de {_dotted_mon('pt', d)} de {d.year} às {_hm(d)}, {n} <{a}> escreveu:",
        "ru": f"{_dow('ru', d)}, {d.day} {_mon('ru', d)} {d.year} г. в {_hm(d)}, {n} <{a}>:",
        "bg": f"На {_dow('bg', d)}, {d.day:02d}.{d.month:02d}.{d.year} г. в {d.hour}:{d.minute:02d} ч. {n} <{a}> "
              f"написа:",
        "it": f"Il giorno {_dow('it', d)} {d.day} {_mon('it', d)} {d.year} alle ore {_hm(d)} {n} <{a}> ha scritto:",
        "de": f"Am {_dow('de', d)}., {d.day}. {_dotted_mon('de', d)} {d.year} um {_hm(d)} Uhr schrieb {n} <{a}>:",
        "fr": f"Le {_dow('fr', d)}. {d.day} {_dotted_mon('fr', d)} {d.year} à {_hm(d)}, {n} <{a}> a écrit :",
        "nl": f"Op {_dow('nl', d)} {d.day} {_mon('nl', d)} {d.year} om {_hm(d)} schreef {n} <{a}>:",
        "pl": f"{_dow('pl', d)}., {d.day} {_mon('pl', d)} {d.year} o {_hm(d)} {n} <{a}> napisał(a):",
        "uk": f"{_dow('uk', d)}, {d.day} {_mon('uk', d)} {d.year} р. о {_hm(d)} {n} <{a}> пише:",
        "zh": f"{n} <{a}> 于{d.year}年{d.month}月{d.day}日{_dow('zh', d)} {_hm(d)}写道：",
        "ja": f"{d.year}年{d.month}月{d.day}日({_dow('ja', d)}) {d.hour}:{d.minute:02d} {n} <{a}>:",
        "ko": f"{d.year}년 {d.month}월 {d.day}일 ({_dow('ko', d)}) {'오전' if d.hour < 12 else '오후'} "
              f"{(d.hour % 12) or 12}:{d.minute:02d}, {n} <{a}>님이 작성:",
        "cs": f"{_dow('cs', d)} {d.day}. {d.month}. {d.year} v {d.hour}:{d.minute:02d} odesílatel {n} <{a}> napsal:",
        "tr": f"{n} <{a}>, {d.day} {_mon('tr', d)} {d.year} {_dow('tr', d)}, {_hm(d)} tarihinde şunu yazdı:",
        "el": f"Στις {_dow('el', d)} {d.day} {_mon('el', d)} {d.year} στις {d.hour}:{d.minute:02d} "
              f"{'π.μ.' if d.hour < 12 else 'μ.μ.'}, ο/η {n} <{a}> έγραψε:",
        # Gmail in Hebrew and Arabic wraps the line and its name and address in marks of writing direction
        "he": f"\u202bבתאריך {_dow('he', d)}, {d.day} {_mon('he', d)} {d.year} ב-{d.hour}:{d.minute:02d} מאת "
              f"\u202a{n}\u202c\u200f <\u202a{a}\u202c\u200f>:\u202c",
        "ar": f"\u202bفي {_dow('ar', d)}، {d.day} {_mon('ar', d, True)} {d.year} في {d.hour}:{d.minute:02d} "
              f"{'ص' if d.hour < 12 else 'م'} تمت كتابة ما يلي بواسطة \u202a{n}\u202c\u200f <\u202a{a}\u202c\u200f>:\u202c",
    }[loc]


def gmail_wrap(line: str, width: int = 76) -> list[str]:
    """Gmail's plain-text part breaks a long attribution line at a space or
    just after the '<' (or '(<') that opens the address."""
    if len(line) <= width:
        return [line]
    cut = -1
    for i, ch in enumerate(line[:width + 1]):
        if ch == " ":
            cut = i
        elif ch == "<" and i + 1 <= width:
            cut = i + 1
    if cut <= 0:
        return [line]
    head, tail = line[:cut].rstrip(" "), line[cut:].lstrip(" ")
    return [head] + gmail_wrap(tail, width)


_BOLD = re.compile(r"(?<![\w*])\*(?=\S)([^*\n]+?)(?<=\S)\*(?![\w*])")


def _html_lines(lines: list[str], tag: str = "div", attrs: str = "") -> str:
    """Typed lines as an editor writes them: one block per line, <br> for a blank one; text made bold in the
    editor (which Gmail's text part writes as *bold*) in <b>."""
    return "".join(f"<{tag}{attrs}>{_bold(ln) if ln else '<br>'}</{tag}>" for ln in lines)


def _bold(line: str) -> str:
    return _BOLD.sub(r"<b>\1</b>", escape(line, quote=False))


GMAIL_QUOTE_STYLE = "margin:0px 0px 0px 0.8ex;border-left:1px solid rgb(204,204,204);padding-left:1ex"


def _linkify(text: str) -> str:
    """Gmail turns addresses in the attribution into mailto links."""
    return re.sub(r"([\w.+-]+@[\w.-]+\w)", r'<a href="mailto:\1">\1</a>', escape(text, quote=False))


def gmail(orig: Original, player: Player, answer: Answer, *, loc: str = "en", style: str = "top",
          mobile: bool = False, signature: str | None = None, seed: str = "") -> bytes:
    """Gmail (web, or the Android/iOS app with ``mobile``): multipart/alternative,
    a text part generated from the HTML, quoted with '> ' under the attribution,
    and HTML with div.gmail_quote > div.gmail_attr + blockquote.gmail_quote."""
    seed = seed or orig.message_id + player.email
    attribution = gmail_attribution(orig, loc)
    div = 'div dir="auto"' if mobile else "div"
    sig = [] if signature is None else ["", signature]
    typed = list(answer.lines) + sig
    # the quoted mail, as Gmail's text part renders the HTML it quotes
    if orig.html:
        start, parts = html_segments(orig.html)
        text_parts = [(k, html_to_plain(h).split("\n")) for k, h in parts]
    else:
        start, parts = "", []
        text_parts = text_segments(orig.text)
    quote = lambda ls: quote_lines(ls)  # noqa: E731
    attr_lines = gmail_wrap(attribution)
    if style == "interleaved":
        body = interleave_text(text_parts, answer, quote)
        text = "\n".join(attr_lines + [""] + body + sig)
    else:
        quoted = [ln for _, ls in text_parts for ln in ls]
        qtext = attr_lines + [""] + quote(quoted)
        text = "\n".join(typed + [""] + qtext) if style == "top" else "\n".join(qtext + [""] + typed)
    # HTML
    attr_html = f'<div dir="ltr" class="gmail_attr">{_linkify(attribution)}<br></div>'
    open_q = f'<blockquote class="gmail_quote" style="{GMAIL_QUOTE_STYLE}">'
    if orig.html and style == "interleaved":
        after = {}
        for where, ls in answer.inline:
            after.setdefault(where, []).extend(ls)
        present = [k for k, _ in parts]
        last_body = [k for k in present if k != "footer"][-1]
        for where in list(after):
            if where and where not in present:
                after.setdefault(last_body, []).extend(after.pop(where))
        chunks, cur = [], []
        for kind, piece in parts:
            cur.append(piece)
            if after.get(kind):
                chunks.append((cur, after[kind]))
                cur = []
        chunks.append((cur, []))
        quoted_html = ""
        for pieces, ls in chunks:
            if pieces:
                quoted_html += f"{open_q}{start}{''.join(pieces)}</div></blockquote>"
            if ls:
                quoted_html += f"<{div}>" + _html_lines(ls) + "</div>"
        lead = _html_lines(after.get("", [])) if after.get("") else ""
        html = (f'<div dir="ltr">{lead}</div><div class="gmail_quote gmail_quote_container">{attr_html}'
                f"{quoted_html}</div>" + (f"<{div}>{_html_lines(sig[1:])}</div>" if sig else ""))
    else:
        inner = body_inner(orig.html) if orig.html else \
            "<div>" + "<br>".join(escape(ln, quote=False) for ln in orig.text.split("\n")) + "</div>"
        quote_html = f'<div class="gmail_quote gmail_quote_container">{attr_html}{open_q}{inner}</blockquote></div>'
        mine = _html_lines(typed, "div", ' dir="auto"') if mobile else '<div dir="ltr">' + _html_lines(typed) + "</div>"
        html = mine + "<br>" + quote_html if style == "top" else quote_html + mine
    boundary = "000000000000" + _hash("b" + seed, 16)
    parts_ = [
        _part('text/plain; charset="UTF-8"', "quoted-printable", qp(text, "utf-8")),
        _part('text/html; charset="UTF-8"', "quoted-printable", qp(html, "utf-8")),
    ]
    head = _headers([
        ("MIME-Version", "1.0"),
        ("References", orig.message_id),
        ("In-Reply-To", orig.message_id),
        ("From", addr(player.name, player.email)),
        ("Date", _date(seed, orig, loc)),
        ("Message-ID", f"<CA+{base64.b32encode(bytes.fromhex(_hash(seed, 40))).decode().rstrip('=')}"
                       f"@mail.gmail.com>"),
        ("Subject", hdr(reply_subject(GMAIL_SUBJECT, orig.subject))),
        ("To", orig.to_reply),
        ("Content-Type", f'multipart/alternative; boundary="{boundary}"'),
    ])
    return _crlf(head + "\n" + _multipart(boundary, parts_))


# ------------------------------------------------------------------ Outlook

OUTLOOK = {  # labels of the header block, "Original Message" line, subject prefix, long date
    "en": ("From", "Sent", "To", "Subject", "-----Original Message-----", "RE: "),
    "de": ("Von", "Gesendet", "An", "Betreff", "-----Ursprüngliche Nachricht-----", "AW: "),
    "fr": ("De\u00a0", "Envoyé\u00a0", "À\u00a0", "Objet\u00a0", "-----Message d'origine-----", "RE\u00a0: "),
    "ru": ("От", "Отправлено", "Кому", "Тема", "-----Исходное сообщение-----", "RE: "),
    "it": ("Da", "Inviato", "A", "Oggetto", "-----Messaggio originale-----", "R: "),
    "es": ("De", "Enviado el", "Para", "Asunto", "-----Mensaje original-----", "RE: "),
    "pl": ("Od", "Wysłane", "Do", "Temat", "-----Oryginalna wiadomość-----", "ODP: "),
    "nl": ("Van", "Verzonden", "Aan", "Onderwerp", "-----Oorspronkelijk bericht-----", "RE: "),
}
OUTLOOK_LANG = {"en": "en-US", "de": "de-DE", "fr": "fr-FR", "ru": "ru-RU", "it": "it-IT", "es": "es-ES",
                "pl": "pl-PL", "nl": "nl-NL"}


def outlook_sent(d: datetime, loc: str) -> str:
    d = local(d, loc)
    return {
        "en": f"{_dow('en', d, True)}, {_mon('en', d, True)} {d.day}, {d.year} {_ampm(d)}",
        "de": f"{_dow('de', d, True)}, {d.day}. {_mon('de', d, True)} {d.year} {_hm(d)}",
        "fr": f"{_dow('fr', d, True)} {d.day} {_mon('fr', d, True)} {d.year} {_hm(d)}",
        "ru": f"{_dow('ru', d, True)}, {d.day} {_mon('ru', d, True)} {d.year} г. {_hm(d)}",
        "it": f"{_dow('it', d, True)} {d.day} {_mon('it', d, True)} {d.year} {_hm(d)}",
        "es": f"{_dow('es', d, True)}, {d.day} de {_mon('es', d, True)} de {d.year} {_hm(d)}",
        "pl": f"{_dow('pl', d, True)}, {d.day} {_mon('pl', d, True)} {d.year} {_hm(d)}",
        "nl": f"{_dow('nl', d, True)} {d.day} {_mon('nl', d, True)} {d.year} {_hm(d)}",
    }[loc]


def _outlook_to(orig: Original) -> str:
    """Outlook names a bare address by itself: "addr" <addr>."""
    name, email = parseaddr(orig.to_reply)
    return f'"{email}" <{email}>' if not name else formataddr((name, email))


def _outlook_headers(orig: Original, player: Player, loc: str, seed: str, *, owa: bool, ctype: str,
                     cte: str = "quoted-printable") -> str:
    subject = reply_subject(OUTLOOK[loc][5], orig.subject)
    thread_index = base64.b64encode(bytes.fromhex(_hash("ti" + seed, 44))).decode()
    if owa:
        mid = f"<AM9PR07MB{_hash('m' + seed, 4).upper()}{_hash('mid' + seed, 32).upper()}@AM9PR07MB" \
              f"{_hash('m' + seed, 4).upper()}.eurprd07.prod.outlook.com>"
        return _headers([
            ("From", addr(player.name, player.email)),
            ("To", _outlook_to(orig)),
            ("Subject", hdr(subject)),
            ("Thread-Topic", hdr(orig.subject)),
            ("Thread-Index", thread_index),
            ("Date", _date(seed, orig, loc)),
            ("Message-ID", mid),
            *_refs(orig)[::-1],
            ("Accept-Language", f"{OUTLOOK_LANG[loc]}, en-US"),
            ("Content-Language", OUTLOOK_LANG[loc]),
            ("X-MS-Has-Attach", ""),
            ("X-MS-TNEF-Correlator", ""),
            ("Content-Type", ctype),
            ("Content-Transfer-Encoding", cte),
            ("MIME-Version", "1.0"),
        ])
    h = _hash("o" + seed, 24)
    return _headers([
        ("From", addr(player.name, player.email)),
        ("To", _outlook_to(orig)),
        *_refs(orig),
        ("Subject", hdr(subject)),
        ("Date", _date(seed, orig, loc)),
        ("Message-ID", f"<0000{h[:8]}${h[8:16]}${h[16:24]}$@{player.email.split('@')[1]}>"),
        ("MIME-Version", "1.0"),
        ("Content-Type", ctype),
        ("Content-Transfer-Encoding", cte),
        ("X-Mailer", "Microsoft Outlook 16.0"),
        ("Thread-Index", thread_index),
        ("Content-Language", OUTLOOK_LANG[loc].lower()),
    ])


WORD_HEAD = """<html xmlns:v="urn:schemas-microsoft-com:vml" xmlns:o="urn:schemas-microsoft-com:office:office" \
xmlns:w="urn:schemas-microsoft-com:office:word" xmlns:m="http://schemas.microsoft.com/office/2004/12/omml" \
xmlns="http://www.w3.org/TR/REC-html40"><head><meta http-equiv=Content-Type content="text/html; charset={charset}">\
<meta name=Generator content="Microsoft Word 15 (filtered medium)"><style><!--
/* Font Definitions */
@font-face
	{{font-family:"Cambria Math";
	panose-1:2 4 5 3 5 4 6 3 2 4;}}
@font-face
	{{font-family:Calibri;
	panose-1:2 15 5 2 2 2 4 3 2 4;}}
/* Style Definitions */
p.MsoNormal, li.MsoNormal, div.MsoNormal
	{{margin:0cm;
	font-size:11.0pt;
	font-family:"Calibri",sans-serif;
	mso-fareast-language:EN-US;}}
a:link, span.MsoHyperlink
	{{mso-style-priority:99;
	color:#0563C1;
	text-decoration:underline;}}
span.E-MailFormatvorlage19
	{{mso-style-type:personal-reply;
	font-family:"Calibri",sans-serif;
	color:windowtext;}}
.MsoChpDefault
	{{mso-style-type:export-only;
	font-size:10.0pt;}}
@page WordSection1
	{{size:612.0pt 792.0pt;
	margin:70.85pt 70.85pt 2.0cm 70.85pt;}}
div.WordSection1
	{{page:WordSection1;}}
--></style><!--[if gte mso 9]><xml>
<o:shapedefaults v:ext="edit" spidmax="1026" />
</xml><![endif]--><!--[if gte mso 9]><xml>
<o:shapelayout v:ext="edit">
<o:idmap v:ext="edit" data="1" />
</o:shapelayout></xml><![endif]--></head>"""


def word_paragraphs(lines: list[str]) -> str:
    """Typed lines as Word writes them: a MsoNormal paragraph each, an empty one for a blank line."""
    out = []
    for ln in lines:
        if ln:
            out.append(f"<p class=MsoNormal>{escape(ln, quote=False)}<o:p></o:p></p>\n")
        else:
            out.append("<p class=MsoNormal><o:p>&nbsp;</o:p></p>\n")
    return "".join(out)


def word_import(html: str) -> str:
    """What Word (Outlook desktop) keeps of a quoted HTML mail: its own
    paragraph markup (MsoNormal, <o:p>), tables as MsoNormalTable with a
    paragraph in every cell, inline styles in its own quoting; the sender's
    class and id attributes are gone."""
    import lxml.html

    frag = lxml.html.fragment_fromstring(body_inner(html), create_parent="div")
    for el in frag.iter():
        if not isinstance(el.tag, str):
            continue
        el.attrib.pop("class", None)
        el.attrib.pop("id", None)
        style = el.get("style")
        if style:
            el.set("style", style.replace('"', "'"))
        if el.tag in ("p", "h1", "h3"):
            if el.tag == "p":
                el.set("class", "MsoNormal")
            op = lxml.html.Element("o_p")
            el.append(op)
        elif el.tag == "table":
            el.set("class", "MsoNormalTable")
            el.set("border", "0")
            el.set("cellspacing", "0")
            el.set("cellpadding", "0")
        elif el.tag in ("td", "th"):
            p = lxml.html.Element("p")
            p.set("class", "MsoNormal")
            p.text, el.text = el.text, None
            for child in list(el):
                p.append(child)
            p.append(lxml.html.Element("o_p"))
            el.append(p)
    out = "".join(lxml.html.tostring(c, encoding="unicode") for c in frag)
    return out.replace("<o_p></o_p>", "<o:p></o:p>")


def _owa_prefix(html: str) -> str:
    """OWA and new Outlook keep a quoted mail's markup but prefix its class
    names and ids with 'x_' (so the sender's CSS cannot style the page)."""
    import lxml.html

    frag = lxml.html.fragment_fromstring(body_inner(html), create_parent="div")
    for el in frag.iter():
        if not isinstance(el.tag, str):
            continue
        if el.get("class"):
            el.set("class", " ".join("x_" + c for c in el.get("class").split()))
        if el.get("id"):
            el.set("id", "x_" + el.get("id"))
    return "".join(lxml.html.tostring(c, encoding="unicode") for c in frag)


_NUMBERED = re.compile(r"^(\d{1,2})[.)]\s+(\S.*)$")


def _owa_autoformat(lines: list[str], font: str) -> str:
    """The answer as Outlook on the web writes it: a div per line, and lines typed as "1. ..." made a
    numbered list by its AutoFormat (an <ol>, the numbers no longer in the text)."""
    out, items = [], []

    def flush():
        if items:
            lis = "".join(f'<li style="{font}"><div role="presentation" class="elementToProof">'
                          f"{escape(x, quote=False)}</div></li>" for x in items)
            out.append('<ol data-editing-info="{&quot;orderedStyleType&quot;:1}" start="1" '
                       f'style="margin-top: 0px; margin-bottom: 0px;">{lis}</ol>\n')
            items.clear()

    for ln in lines:
        m = _NUMBERED.match(ln)
        if m:
            items.append(m.group(2))
            continue
        flush()
        out.append(f'<div class="elementToProof" style="{font}">{escape(ln, quote=False) or "<br>"}</div>\n')
    flush()
    return "".join(out)


def outlook_html(orig: Original, player: Player, answer: Answer, *, loc: str = "en", variant: str = "desktop",
                 charset: str = "windows-1252", smart: bool = True, seed: str = "") -> bytes:
    """An HTML-only Outlook reply, always top-posted; the quoted mail is not
    inside any quote element but follows the header block as siblings.
    variant: "desktop" (Word HTML, the header block in a div with a top
    border), "owa" (Outlook on the web / new Outlook: appendonsend, <hr>,
    divRplyFwdMsg), "classic" (a reply to pbem's plain-text mail: the
    '-----Original Message-----' block in a MsoNormal paragraph and the
    quoted text as paragraphs)."""
    seed = seed or orig.message_id + player.email
    frm, sent, to, subj, original_message, _ = OUTLOOK[loc]
    typed = [smarten(ln) if smart else ln for ln in answer.lines]
    when = outlook_sent(orig.sent, loc)
    their = escape(formataddr((orig.from_name, orig.from_addr)), quote=False)
    mine_to = escape(formataddr((player.name, player.email)), quote=False)
    subject = escape(orig.subject, quote=False)
    if variant == "owa":
        font = ('font-family: Aptos, Aptos_EmbeddedFont, Aptos_MSFontService, Calibri, Helvetica, sans-serif; '
                'font-size: 12pt; color: rgb(0, 0, 0);')
        mine = _owa_autoformat(typed, font)
        quoted = _owa_prefix(orig.html) if orig.html else \
            "<div>" + "<br>\n".join(escape(ln, quote=False) for ln in orig.text.split("\n")) + "</div>"
        html = (f'<html>\n<head>\n<meta http-equiv="Content-Type" content="text/html; charset={charset}">\n'
                f'<style type="text/css" style="display:none;"> P {{margin-top:0;margin-bottom:0;}} </style>\n'
                f'</head>\n<body dir="ltr">\n{mine}<div id="appendonsend"></div>\n'
                f'<hr style="display:inline-block;width:98%" tabindex="-1">\n'
                f'<div id="divRplyFwdMsg" dir="ltr"><font face="Calibri, sans-serif" style="font-size:11pt" '
                f'color="#000000"><b>{frm}:</b> {their}<br>\n<b>{sent}:</b> {when}<br>\n<b>{to}:</b> {mine_to}<br>\n'
                f'<b>{subj}:</b> {subject}</font>\n<div>&nbsp;</div>\n</div>\n{quoted}\n</body>\n</html>\n')
    elif variant == "classic":
        header = (f"<p class=MsoNormal>{original_message}<br>\n{frm}: {their} <br>\n{sent}: {when}<br>\n"
                  f"{to}: {mine_to}<br>\n{subj}: {subject}<o:p></o:p></p>\n")
        orig_lines = orig.text.replace("\r\n", "\n").rstrip("\n").split("\n")
        quoted = "".join(
            f"<p class=MsoNormal>{escape(ln, quote=False).replace('  ', '&nbsp; ')}<o:p></o:p></p>\n" if ln.strip()
            else "<p class=MsoNormal><o:p>&nbsp;</o:p></p>\n" for ln in orig_lines)
        html = (WORD_HEAD.format(charset=charset) + f'<body lang={OUTLOOK_LANG[loc][:2].upper()} link="#0563C1" '
                f'vlink="#954F72" style=\'word-wrap:break-word\'><div class=WordSection1>\n'
                + word_paragraphs(typed + [""]) + header + "<p class=MsoNormal><o:p>&nbsp;</o:p></p>\n"
                + quoted + "</div>\n</body>\n</html>\n")
    else:
        header = (f"<div><div style='border:none;border-top:solid #E1E1E1 1.0pt;padding:3.0pt 0cm 0cm 0cm'>\n"
                  f"<p class=MsoNormal><b>{frm}:</b> {their} <br>\n<b>{sent}:</b> {when}<br>\n"
                  f"<b>{to}:</b> {mine_to}<br>\n<b>{subj}:</b> {subject}<o:p></o:p></p>\n</div>\n</div>\n")
        quoted = word_import(orig.html) if orig.html else "".join(
            f"<p class=MsoNormal>{escape(ln, quote=False)}<o:p></o:p></p>\n" for ln in orig.text.split("\n"))
        html = (WORD_HEAD.format(charset=charset) + f'<body lang={OUTLOOK_LANG[loc][:2].upper()} link="#0563C1" '
                f'vlink="#954F72" style=\'word-wrap:break-word\'><div class=WordSection1>\n'
                + word_paragraphs(typed + [""]) + header + "<p class=MsoNormal><o:p>&nbsp;</o:p></p>\n"
                + quoted + "\n</div>\n</body>\n</html>\n")
    head = _outlook_headers(orig, player, loc, seed, owa=variant == "owa",
                            ctype=f'text/html; charset="{charset}"')
    return _crlf(head + "\n" + qp(html, charset, html=True))


def outlook_text(orig: Original, player: Player, answer: Answer, *, loc: str = "en", charset: str = "utf-8",
                 smart: bool = True, seed: str = "") -> bytes:
    """Outlook in plain-text mode: top-posted, '-----Original Message-----'
    and the header block, then pbem's text part unindented."""
    seed = seed or orig.message_id + player.email
    frm, sent, to, subj, original_message, _ = OUTLOOK[loc]
    typed = [smarten(ln) if smart else ln for ln in answer.lines]
    block = [original_message,
             f"{frm.strip()}: {formataddr((orig.from_name, orig.from_addr))} ",
             f"{sent.strip()}: {outlook_sent(orig.sent, loc)}",
             f"{to.strip()}: {formataddr((player.name, player.email))}",
             f"{subj.strip()}: {orig.subject}", ""]
    text = "\n".join(typed + [""] + block + orig.text.replace("\r\n", "\n").rstrip("\n").split("\n")) + "\n"
    try:
        text.encode(charset)
    except UnicodeEncodeError:  # Outlook picks an encoding that holds the whole text
        charset = "utf-8"
    head = _outlook_headers(orig, player, loc, seed, owa=False, ctype=f'text/plain; charset="{charset}"')
    return _crlf(head + "\n" + qp(text, charset))


# ------------------------------------------------------------------ Thunderbird

TB_DATE = {"en-GB": "{d:%d/%m/%Y}", "en": "{m}/{day}/{yy}", "de": "{d:%d.%m.%y}", "fr": "{d:%d/%m/%Y}",
           "ru": "{d:%d.%m.%Y}", "uk": "{d:%d.%m.%y}", "nl": "{d:%d-%m-%Y}", "pl": "{d:%d.%m.%Y}",
           "it": "{d:%d/%m/%Y}", "es": "{d:%d/%m/%y}", "pt": "{d:%d/%m/%Y}", "bg": "{d:%d.%m.%y} г."}
TB_ATTRIBUTION = {"en-GB": "On {date} {time}, {name} wrote:", "en": "On {date} {time}, {name} wrote:",
                  "de": "Am {date} um {time} schrieb {name}:", "fr": "Le {date} à {time}, {name} a écrit\u00a0:",
                  "ru": "{date} {time}, {name} пишет:", "uk": "{date} {time}, {name} пише:",
                  "nl": "Op {date} om {time} schreef {name}:", "pl": "W dniu {date} o {time}, {name} pisze:",
                  "it": "Il {date} {time}, {name} ha scritto:", "es": "El {date} a las {time}, {name} escribió:",
                  "pt": "Em {date} {time}, {name} escreveu:", "bg": "На {date} в {time}, {name} написа:"}


def thunderbird_attribution(orig: Original, loc: str) -> str:
    d = local(orig.sent, loc)
    date = TB_DATE[loc].format(d=d, m=d.month, day=d.day, yy=f"{d.year % 100:02d}")
    time = _ampm(d) if loc == "en" else _hm(d)
    return TB_ATTRIBUTION[loc].format(date=date, time=time, name=orig.from_name)


def thunderbird(orig: Original, player: Player, answer: Answer, *, loc: str = "en-GB", style: str = "bottom",
                charset: str = "UTF-8", delsp: bool = False, signature: list[str] | None = None,
                seed: str = "") -> bytes:
    """Thunderbird composing plain text: format=flowed (lines of 72, soft
    breaks as trailing spaces), 8bit in the chosen charset (UTF-8, KOI8-R,
    windows-1251), the attribution line with the sender's name only, quoted
    lines '> ' ('>>' for a line already quoted), the answer below the quote
    by default (bottom-posting), and the signature after '-- '."""
    seed = seed or orig.message_id + player.email
    attribution = thunderbird_attribution(orig, loc)
    segs = text_segments(orig.text)
    sig = ["-- ", *signature] if signature else []
    if style == "interleaved":
        body = [attribution] + interleave_text(segs, answer, _tb_quote) + sig
    else:
        quoted = [attribution] + _tb_quote([ln for _, ls in segs for ln in ls])
        body = (answer.lines + [""] + quoted + ([""] + sig if sig else [])) if style == "top" \
            else quoted + [""] + answer.lines + [""] + sig
    text = "\n".join(flowed(body, 72, delsp)) + "\n"
    ctype = f"text/plain; charset={charset}; format=flowed" + ("; delsp=yes" if delsp else "")
    hcharset = "koi8-r" if charset.lower() == "koi8-r" else "utf-8"
    head = _headers([
        ("Message-ID", f"<{_uuid(seed)}@{player.email.split('@')[1]}>"),
        ("Date", _date(seed, orig, loc)),
        ("MIME-Version", "1.0"),
        ("User-Agent", "Mozilla Thunderbird"),
        ("Subject", hdr(reply_subject("Re: ", orig.subject), hcharset)),
        ("Content-Language", {"en-GB": "en-GB", "en": "en-US"}.get(loc, loc)),
        ("To", orig.to_reply),
        ("References", orig.message_id),
        ("From", addr(player.name, player.email, hcharset)),
        ("In-Reply-To", orig.message_id),
        ("Content-Type", ctype),
        ("Content-Transfer-Encoding", "8bit"),
    ])
    # a character the 8-bit charset lacks (in pbem's quoted text) is sent as '?', as Thunderbird does when
    # the charset is forced
    return _crlf(head.encode("ascii") + b"\n" + text.encode(charset, "replace"))


# ------------------------------------------------------------------ Apple Mail and iOS Mail

IPHONE = {"en": "Sent from my iPhone", "en-GB": "Sent from my iPhone", "de": "Von meinem iPhone gesendet",
          "fr": "Envoyé de mon iPhone", "it": "Inviato da iPhone", "es": "Enviado desde mi iPhone",
          "pt": "Enviado do meu iPhone", "nl": "Verzonden met mijn iPhone", "ru": "Отправлено с iPhone"}


def apple_attribution(orig: Original, loc: str) -> str:
    d = local(orig.sent, loc)
    n, a = orig.from_name, orig.from_addr
    return {
        "en": f"On {_mon('en', d)} {d.day}, {d.year}, at {_ampm(d)}, {n} <{a}> wrote:",
        "en-GB": f"On {d.day} {_mon('en', d)} {d.year}, at {_hm(d)}, {n} <{a}> wrote:",
        "de": f"Am {d:%d.%m.%Y} um {_hm(d)} schrieb {n} <{a}>:",
        "fr": f"Le {d.day} {_dotted_mon('fr', d)} {d.year} à {_hm(d)}, {n} <{a}> a écrit\u00a0:",
        "it": f"Il giorno {d.day} {_mon('it', d)} {d.year}, alle ore {_hm(d)}, {n} <{a}> ha scritto:",
        "es": f"El {d.day} {_mon('es', d)} {d.year}, a las {_hm(d)}, {n} <{a}> escribió:",
        "pt": f"Em {d.day} de {_dotted_mon('pt', d)} de {d.year}, à(s) {_hm(d)}, {n} <{a}> escreveu:",
        "nl": f"Op {d.day} {_mon('nl', d)} {d.year} om {_hm(d)} heeft {n} <{a}> het volgende geschreven:",
        "ru": f"{d.day} {_mon('ru', d)} {d.year} г., в {_hm(d)}, {n} <{a}> написал(а):",
    }[loc]


def apple(orig: Original, player: Player, answer: Answer, *, loc: str = "en-GB", style: str = "top",
          iphone: bool = False, smart: bool = True, seed: str = "") -> bytes:
    """Apple Mail on a Mac (``iphone`` False): text/plain format=flowed with
    DelSp=yes, quoted-printable, the attribution above the '> ' quote; HTML
    with <blockquote type="cite">. iOS Mail (``iphone`` True): 'Sent from my
    iPhone' in the phone's language, the attribution itself quoted, the
    quote starting with a zero-width no-break space, smart punctuation and a
    capital at the start of every typed line."""
    seed = seed or orig.message_id + player.email
    attribution = apple_attribution(orig, loc)
    typed = [smarten(ln) if (smart or iphone) else ln for ln in answer.lines]
    if iphone:
        typed = typed + ["", IPHONE[loc]]
    if orig.html:
        start, hparts = html_segments(orig.html)
        tparts = [(k, html_to_plain(h).split("\n")) for k, h in hparts]
    else:
        start, hparts, tparts = "", [], text_segments(orig.text)
    quoted_lines = [ln for _, ls in tparts for ln in ls]
    if iphone:
        quoted_lines = ["\ufeff" + quoted_lines[0]] + quoted_lines[1:] if quoted_lines else quoted_lines
        qtext = quote_lines([attribution, ""] + quoted_lines)
        text_lines = typed + [""] + qtext
    elif style == "interleaved":
        inline = Answer(answer.lines, [(w, [smarten(x) if smart else x for x in ls]) for w, ls in answer.inline])
        text_lines = [attribution, ""] + interleave_text(tparts, inline, quote_lines)
    else:
        qtext = [attribution, ""] + quote_lines(quoted_lines)
        text_lines = typed + [""] + qtext if style == "top" else qtext + [""] + typed
    inner = body_inner(orig.html) if orig.html else escape(orig.text, quote=False).replace("\n", "<br>")
    attr_html = escape(attribution, quote=False)
    if iphone:
        mine = "".join(f'<div dir="ltr">{escape(ln, quote=False) or "<br>"}</div>' for ln in typed)
        html = (f'<html><head><meta http-equiv="content-type" content="text/html; charset=utf-8"></head>'
                f'<body dir="auto">{mine}<div dir="ltr"><br><blockquote type="cite">{attr_html}<br><br>'
                f'</blockquote></div><blockquote type="cite"><div dir="ltr">\ufeff{inner}</div></blockquote>'
                f"</body></html>")
    else:
        body_style = "overflow-wrap: break-word; -webkit-nbsp-mode: space; line-break: after-white-space;"
        cite = (f'<div><br><blockquote type="cite"><div>{attr_html}</div><br class="Apple-interchange-newline">'
                f"<div>{inner}</div></blockquote></div>")
        if style == "interleaved" and hparts:
            after: dict[str, list[str]] = {}
            for where, ls in answer.inline:
                after.setdefault(where, []).extend(smarten(x) if smart else x for x in ls)
            present = [k for k, _ in hparts]
            last_body = [k for k in present if k != "footer"][-1]
            for where in list(after):
                if where and where not in present:
                    after.setdefault(last_body, []).extend(after.pop(where))
            cite = f'<div><br><blockquote type="cite"><div>{attr_html}</div><br class="Apple-interchange-newline">'
            for kind, piece in hparts:
                cite += f"{start}{piece}</div>"
                if after.get(kind):
                    cite += "</blockquote>" + _html_lines(after[kind]) + '<blockquote type="cite">'
            cite += "</blockquote></div>"
            mine = ""
        else:
            first, rest = (typed[0] if typed else ""), typed[1:]
            mine = escape(first, quote=False) + _html_lines(rest)
        html = (f'<html><head><meta http-equiv="content-type" content="text/html; charset=utf-8"></head>'
                f'<body style="{body_style}">' + (mine + cite if style != "bottom" else cite + _html_lines(typed))
                + "</body></html>")
    if iphone:
        boundary = f"Apple-Mail-{_uuid('b' + seed, True)}"
        text_part = _part("text/plain; charset=utf-8", "quoted-printable", qp("\n".join(text_lines), "utf-8"))
        html_part = _part("text/html; charset=utf-8", "quoted-printable", qp(html, "utf-8"))
        head = _headers([
            ("Content-Type", f"multipart/alternative; boundary={boundary}"),
            ("Content-Transfer-Encoding", "7bit"),
            ("From", addr(player.name, player.email)),
            ("Mime-Version", "1.0 (1.0)"),
            ("Date", _date(seed, orig, loc)),
            ("Subject", hdr(reply_subject("Re: ", orig.subject))),
            ("Message-Id", f"<{_uuid(seed, True)}@{player.email.split('@')[1]}>"),
            *_refs(orig)[::-1],
            ("To", orig.to_reply),
            ("X-Mailer", "iPhone Mail (22B91)"),
        ])
    else:
        boundary = f"Apple-Mail=_{_uuid('b' + seed, True)}"
        text = "\n".join(flowed(text_lines, 76, delsp=True))
        text_part = ("Content-Transfer-Encoding: quoted-printable\nContent-Type: text/plain;\n\tcharset=utf-8;\n"
                     f"\tdelsp=yes;\n\tformat=flowed\n\n{qp(text, 'utf-8').rstrip()}\n")
        html_part = ("Content-Transfer-Encoding: quoted-printable\nContent-Type: text/html;\n\tcharset=utf-8\n\n"
                     f"{qp(html, 'utf-8').rstrip()}\n")
        head = _headers([
            ("From", addr(player.name, player.email)),
            ("Content-Type", f'multipart/alternative;\n\tboundary="{boundary}"'),
            ("Mime-Version", "1.0 (Mac OS X Mail 16.0 \\(3826.200.121\\))"),
            ("Subject", hdr(reply_subject("Re: ", orig.subject))),
            ("Date", _date(seed, orig, loc)),
            ("In-Reply-To", orig.message_id),
            ("To", orig.to_reply),
            ("References", orig.message_id),
            ("Message-Id", f"<{_uuid(seed, True)}@{player.email.split('@')[1]}>"),
            ("X-Mailer", "Apple Mail (2.3826.200.121)"),
        ])
    return _crlf(head + "\n" + _multipart(boundary, [text_part, html_part]))


# ------------------------------------------------------------------ phones and web mailers

SAMSUNG = {  # separator, labels, signature, subject prefix
    "en": ("-------- Original message --------", ("From", "Date", "To", "Subject"), "Sent from my Galaxy", "Re: "),
    "de": ("-------- Ursprüngliche Nachricht --------", ("Von", "Datum", "An", "Betreff"),
           "Von meinem/meiner Galaxy gesendet", "AW: "),
    "fr": ("-------- Message d'origine --------", ("De\u00a0", "Date\u00a0", "À\u00a0", "Objet\u00a0"),
           "Envoyé depuis mon Galaxy", "RE: "),
}


def samsung(orig: Original, player: Player, answer: Answer, *, loc: str = "en", seed: str = "") -> bytes:
    """Samsung Email: top-posted, its signature, then the separator line and
    a header block with the quoted mail unindented below it (in HTML: the
    mail as a sibling after the header div), base64 UTF-8 parts."""
    seed = seed or orig.message_id + player.email
    sep, (frm, date, to, subj), sig, prefix = SAMSUNG[loc]
    d = local(orig.sent, loc)
    tz = f"{d:%z}"
    when = (f"{d:%d.%m.%y}" if loc == "de" else f"{d:%d/%m/%Y}") + f"  {_hm(d)}  (GMT{tz[:3]}:{tz[3:]})"
    block = [sep, f"{frm.strip()}: {formataddr((orig.from_name, orig.from_addr))} ", f"{date.strip()}: {when} ",
             f"{to.strip()}: {formataddr((player.name, player.email))} ", f"{subj.strip()}: {orig.subject} ", ""]
    quoted_text = html_to_plain(body_inner(orig.html)) if orig.html else orig.text
    text = "\n".join(answer.lines + ["", "", "", sig, "", ""] + block + quoted_text.rstrip("\n").split("\n")) + "\n"
    mine = "".join(f'<div dir="auto">{escape(ln, quote=False) or "<br>"}</div>' for ln in answer.lines)
    head_html = "".join(f"<div>{escape(x, quote=False) or '<br>'}</div>" for x in block)
    inner = body_inner(orig.html) if orig.html else escape(orig.text, quote=False).replace("\n", "<br>")
    html = (f'<html><head><meta http-equiv="Content-Type" content="text/html; charset=UTF-8"></head><body>{mine}'
            f'<div dir="auto"><br></div><div dir="auto"><br></div><div id="composer_signature" dir="auto">'
            f'<div style="font-size:85%;color:#575757" dir="auto">{escape(sig)}</div></div><div dir="auto"><br>'
            f'</div><div><br></div><div align="left" dir="auto" style="font-size:100%;color:#000000">{head_html}'
            f"</div>{inner}</body></html>")
    boundary = f"--_com.samsung.android.email_{int(_hash('b' + seed, 13), 16) % 10**16:016d}"
    head = _headers([
        ("Date", _date(seed, orig, loc)),
        ("Subject", hdr(reply_subject(prefix, orig.subject))),
        ("Message-ID", f"<{_hash(seed, 12)}-{_hash('x' + seed, 8)}@email.android.com>"),
        ("Importance", "normal"),
        ("From", addr(player.name, player.email)),
        ("To", orig.to_reply),
        *_refs(orig),
        ("MIME-Version", "1.0"),
        ("Content-Type", f'multipart/alternative; boundary="{boundary}"'),
    ])
    return _crlf(head + "\n" + _multipart(boundary, [
        _part("text/plain; charset=UTF-8", "base64", b64(text)),
        _part("text/html; charset=UTF-8", "base64", b64(html)),
    ]))


K9 = {"de": ("Am {day}. {month} {year} {time}:00 {zone} schrieb {name} <{addr}>:",
             "Diese Nachricht wurde von meinem Android-Gerät mit K-9 Mail gesendet."),
      "en": ("On {month} {day}, {year} {time}:00 {ampm} {zone}, {name} <{addr}> wrote:",
             "Sent from my Android device with K-9 Mail. Please excuse my brevity.")}


def k9(orig: Original, player: Player, answer: Answer, *, loc: str = "de", style: str = "top",
       seed: str = "") -> bytes:
    """K-9 Mail (now Thunderbird for Android) in plain text: the attribution
    with seconds and the time zone's short name, quoted with '>' (K-9's
    quote prefix has no space), its default signature."""
    seed = seed or orig.message_id + player.email
    d = local(orig.sent, loc)
    fmt, sig = K9[loc]
    attribution = fmt.format(day=d.day, month=_mon(loc, d, True), year=d.year,
                             time=f"{(d.hour % 12) or 12}:{d.minute:02d}" if loc == "en" else _hm(d),
                             ampm="AM" if d.hour < 12 else "PM", zone="MEZ" if loc == "de" else "EST",
                             name=orig.from_name, addr=orig.from_addr)
    quoted = [">" + ln.rstrip() for ln in orig.text.replace("\r\n", "\n").rstrip("\n").split("\n")]
    signature = ["-- ", sig]
    lines = (answer.lines + ["", *signature, "", attribution] + quoted) if style == "top" else \
        ([attribution] + quoted + [""] + answer.lines + ["", *signature])
    head = _headers([
        ("Date", _date(seed, orig, loc)),
        ("User-Agent", "K-9 Mail for Android"),
        *_refs(orig),
        ("MIME-Version", "1.0"),
        ("Content-Type", "text/plain; charset=utf-8"),
        ("Content-Transfer-Encoding", "quoted-printable"),
        ("Subject", hdr(reply_subject("Re: ", orig.subject))),
        ("To", orig.to_reply),
        ("From", addr(player.name, player.email)),
        ("Message-ID", f"<{_hash(seed, 16).upper()}@email.android.com>"),
    ])
    return _crlf(head + "\n" + qp("\n".join(lines) + "\n", "utf-8"))


def mailru(orig: Original, player: Player, answer: Answer, *, seed: str = "") -> bytes:
    """Mail.ru's Android app: top-posted, 'Отправлено из мобильной Почты
    Mail.ru', then the attribution (full weekday, genitive month, offset) and
    the quote ('>' lines; in HTML a styled blockquote); base64 UTF-8."""
    seed = seed or orig.message_id + player.email
    d = local(orig.sent, "ru")
    attribution = (f"{_dow('mailru', d, True)}, {d.day} {_mon('ru', d, True)} {d.year}, {_hm(d)} +03:00 "
                   f"от {orig.from_name} <{orig.from_addr}>:")
    sig = "Отправлено из мобильной Почты Mail.ru"
    quoted_text = html_to_plain(body_inner(orig.html)) if orig.html else orig.text
    quoted = [">" + (" " + ln if ln.strip() else "") for ln in quoted_text.rstrip("\n").split("\n")]
    text = "\n".join(answer.lines + ["", "", sig, "", "", attribution, ">"] + quoted) + "\n"
    inner = body_inner(orig.html) if orig.html else escape(orig.text, quote=False).replace("\n", "<br>")
    html = (f"<HTML><BODY><div>{'<br>'.join(escape(ln, quote=False) for ln in answer.lines)}</div><div><br></div>"
            f'<div data-signature-widget="container"><div data-signature-widget="content"><div>{sig}</div></div>'
            f'</div><div><br></div><blockquote style="border-left:1px solid #0857A6; margin:10px; padding:0 0 0 '
            f'10px;">{escape(attribution, quote=False)}<br><br><div id=""><div class="js-helper js-readmsg-msg">'
            f"<div><div>{inner}</div></div></div></div></blockquote></BODY></HTML>")
    boundary = f"----ALT--{_hash('b' + seed, 30)}{int(_hash('c' + seed, 8), 16) % 10**10:010d}"
    head = _headers([
        ("From", addr(player.name, player.email)),
        ("To", orig.to_reply),
        ("Subject", hdr(reply_subject("Re: ", orig.subject))),
        ("MIME-Version", "1.0"),
        ("X-Mailer", "Mail.Ru Mail for Android"),
        ("Date", _date(seed, orig, "ru")),
        ("X-Priority", "3 (Normal)"),
        ("Message-ID", f"<{int(_hash(seed, 10), 16) % 10**10}.{int(_hash('n' + seed, 8), 16) % 10**9}"
                       f"@f{int(_hash('f' + seed, 2), 16) % 500}.i.mail.ru>"),
        *_refs(orig),
        ("Content-Type", f'multipart/alternative;\n\tboundary="{boundary}"'),
    ])
    return _crlf(head + "\n" + _multipart(boundary, [
        _part("text/plain; charset=utf-8", "base64", b64(text)),
        _part("text/html; charset=utf-8", "base64", b64(html)),
    ]))


def _smtp_lines(body: bytes, limit: int = 990) -> bytes:
    """An 8bit body as it reaches us: a line longer than SMTP allows (998
    octets) is broken by the sending MTA (Postfix breaks at 990), so one long
    line of HTML arrives as several."""
    out = []
    for line in body.split(b"\n"):
        while len(line) > limit:
            cut = line.rfind(b">", 0, limit) + 1 or limit  # Yandex's own HTML breaks after a tag
            out.append(line[:cut])
            line = line[cut:]
        out.append(line)
    return b"\n".join(out)


def yandex(orig: Original, player: Player, answer: Answer, *, mobile: bool = False, seed: str = "") -> bytes:
    """Yandex Mail. On the web it sends HTML only (8bit UTF-8): the answer in
    divs, the attribution '23.11.2026, 10:00, "pbem" <addr>:' and the quote in
    a <blockquote>. The mobile app adds a text part and its signature after '-- '."""
    seed = seed or orig.message_id + player.email
    d = local(orig.sent, "ru")
    attribution = f'{d:%d.%m.%Y}, {_hm(d)}, "{orig.from_name}" <{orig.from_addr}>:'
    sig = ["-- ", "Отправлено из мобильного приложения Яндекс Почты"] if mobile else []
    inner = body_inner(orig.html) if orig.html else escape(orig.text, quote=False).replace("\n", "<br>")
    html = ("<div>" + "</div><div>".join(escape(ln, quote=False) or "\u00a0" for ln in answer.lines + sig)
            + f"</div><div>\u00a0</div><div>{escape(attribution, quote=False)}</div><blockquote>{inner}</blockquote>")
    mid = f"<{int(_hash(seed, 12), 16) % 10**15}@mail.yandex.ru>"
    common = [("From", addr(player.name, player.email)), ("To", orig.to_reply), *_refs(orig),
              ("Subject", hdr(reply_subject("Re: ", orig.subject))), ("MIME-Version", "1.0"),
              ("X-Mailer", "Yamail [ http://yandex.ru ] 5.0"), ("Date", _date(seed, orig, "ru")),
              ("Message-Id", mid)]
    if not mobile:
        head = _headers(common + [("Content-Transfer-Encoding", "8bit"),
                                  ("Content-Type", "text/html; charset=utf-8")])
        return _crlf(head.encode("ascii") + b"\n" + _smtp_lines(html.encode("utf-8")) + b"\n")
    quoted_text = html_to_plain(body_inner(orig.html)) if orig.html else orig.text
    text = "\n".join(answer.lines + sig + ["", attribution] + quote_lines(quoted_text.rstrip("\n").split("\n")))
    boundary = f"----==--bound.{int(_hash('b' + seed, 6), 16)}.myt5-{_hash('h' + seed, 12)}.qloud-c.yandex.net"
    head = _headers(common + [("Content-Type", f'multipart/alternative; boundary="{boundary}"')])
    return _crlf(head + "\n" + _multipart(boundary, [
        _part("text/plain; charset=utf-8", "base64", b64(text + "\n")),
        _part("text/html; charset=utf-8", "base64", b64(html)),
    ]))


def _ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def proton(orig: Original, player: Player, answer: Answer, *, seed: str = "") -> bytes:
    """Proton Mail: top-posted, 'Sent with Proton Mail secure email.', then
    '------- Original Message -------' and its attribution, a blank line and
    the '> ' quote; HTML with div.protonmail_quote and blockquote."""
    seed = seed or orig.message_id + player.email
    d = local(orig.sent, "en-GB")
    attribution = (f"On {_dow('en', d, True)}, {_mon('en', d, True)} {_ordinal(d.day)}, {d.year} at {_hm(d)}, "
                   f"{orig.from_name} <{orig.from_addr}> wrote:")
    sig = "Sent with Proton Mail secure email."
    quoted_text = html_to_plain(body_inner(orig.html)) if orig.html else orig.text
    text = "\n".join(answer.lines + ["", sig, "", "------- Original Message -------", attribution, "", ""]
                     + quote_lines(quoted_text.rstrip("\n").split("\n"))) + "\n"
    font = "font-family: Arial, sans-serif; font-size: 14px;"
    inner = body_inner(orig.html) if orig.html else escape(orig.text, quote=False).replace("\n", "<br>")
    html = ("".join(f'<div style="{font}">{escape(ln, quote=False) or "<br>"}</div>' for ln in answer.lines)
            + f'<div style="{font}"><br></div><div class="protonmail_signature_block" style="{font}">'
            '<div class="protonmail_signature_block-user protonmail_signature_block-empty"></div>'
            '<div class="protonmail_signature_block-proton">Sent with <a href="https://proton.me/" target="_blank">'
            f'Proton Mail</a> secure email.</div></div><div style="{font}"><br></div>'
            f'<div class="protonmail_quote">------- Original Message -------<br>{escape(attribution, quote=False)}'
            f'<br><br><blockquote class="protonmail_quote" type="cite">{inner}</blockquote><br></div>')
    boundary = f"b1_{_hash('b' + seed, 40)}"
    head = _headers([
        ("Date", _date(seed, orig, "en-GB")),
        ("To", orig.to_reply),
        ("From", addr(player.name, player.email)),
        ("Subject", hdr(reply_subject("Re: ", orig.subject))),
        ("Message-ID", f"<{base64.urlsafe_b64encode(bytes.fromhex(_hash(seed, 48))).decode()}=@proton.me>"),
        *_refs(orig),
        ("MIME-Version", "1.0"),
        ("Content-Type", f'multipart/alternative; boundary="{boundary}"'),
    ])
    return _crlf(head + "\n" + _multipart(boundary, [
        _part("text/plain; charset=utf-8", "base64", b64(text)),
        _part("text/html; charset=utf-8", "base64", b64(html)),
    ]))


# ------------------------------------------------------------------ clients with a header block of their own
#
# These put a header block of their own above the quoted mail, which they quote unindented (no '>'), as the
# clients of China, Japan, Korea, the Czech Republic, Poland, Turkey, Greece, Israel and the Arab world, HCL
# Notes and Seznam do; Tuta and neomutt write an attribution line of their own. pbem knows none of these
# separators by name: it finds its own text under the block (the marker first in every mail it sends).


def _zh_when(d: datetime) -> str:  # QQ Mail: 2026年12月6日(星期天) 上午9:56
    noon = "上午" if d.hour < 12 else "下午"
    return f"{d.year}年{d.month}月{d.day}日({_dow('qq', d, True)}) {noon}{(d.hour % 12) or 12}:{d.minute:02d}"


HEADER_CLIENTS = {
    # key: (display name, locale, separator, labels (from, date, to, subject), colon, date format, subject prefix,
    #       charset, parts, Message-ID domain, X-Mailer, quote style)
    "qq": ("QQ Mail (web)", "zh", "------------------&nbsp;原始邮件&nbsp;------------------",
           ("发件人", "发送时间", "收件人", "主题"), ": ", _zh_when, "回复：", "gb18030", "alternative", "qq.com",
           None, "plain"),
    "qq-en": ("QQ Mail (web, English)", "en", "------------------&nbsp;Original&nbsp;------------------",
              ("From", "Date", "To", "Subject"), ": ",
              lambda d: f"{_dow('en', d)}, {_mon('en', d)} {d.day}, {d.year} {_ampm(d)}", "Re: ", "gb18030",
              "alternative", "qq.com", None, "plain"),
    "foxmail": ("Foxmail (desktop)", "zh", None, ("发件人", "发送时间", "收件人", "主题"), "： ",
                lambda d: f"{d:%Y-%m-%d} {_hm(d)}", "回复：", "gb2312", "alternative", "foxmail.com",
                "Foxmail 7.2.25.375[cn]", "plain"),
    "notes": ("HCL Notes 9", "en", '-----"{from_name}" <{from_addr}> wrote: -----', ("To", "From", "Date", "Subject"),
              ": ", lambda d: f"{d:%m/%d/%Y} {(d.hour % 12) or 12:02d}:{d.minute:02d}{'AM' if d.hour < 12 else 'PM'}",
              "Re: ", "ISO-8859-1", "alternative", "notes.example.test", "Lotus Notes Release 9.0.1FP10 SHF124",
              "plain"),
    "seznam": ("Seznam.cz Email", "cs", "---------- Původní e-mail ----------", ("Od", "Komu", "Datum", "Předmět"),
               ": ", lambda d: f"{d.day}. {d.month}. {d.year} {d.hour}:{d.minute:02d}:00", "Re: ", "utf-8",
               "alternative", "email.cz", None, "seznam"),
    "outlook-ja": ("Outlook, plain text", "ja", None, ("差出人", "送信日時", "宛先", "件名"), ": ",
                   lambda d: f"{d.year}年{d.month}月{d.day}日 {d.hour}:{d.minute:02d}", "RE: ", "iso-2022-jp", "text",
                   "example.co.jp", "Microsoft Outlook 16.0", "plain"),
    "daum": ("Daum Mail (HTML only)", "ko", "------ 원본 메시지 ------", ("보낸사람", "받는사람", "날짜", "제목"), " : ",
             lambda d: f"{d.year}.{d.month:02d}.{d.day:02d} {_hm(d)}", "RE: ", "utf-8", "html", "daum.net", None,
             "plain"),
    "interia": ("Interia Poczta", "pl", "-------- Oryginalna wiadomość --------", ("Od", "Do", "Data", "Temat"), ": ",
                lambda d: f"{d:%d.%m.%Y} {_hm(d)}", "Odp: ", "utf-8", "alternative", "interia.pl", None, "plain"),
    "outlook-tr": ("Outlook, plain text", "tr", None, ("Kimden", "Gönderildi", "Kime", "Konu"), ": ",
                   lambda d: f"{d.day} {_mon('tr', d, True)} {d.year} {_dow('tr', d, True)} {_hm(d)}", "YNT: ",
                   "utf-8", "text", "example.com.tr", "Microsoft Outlook 16.0", "plain"),
    "outlook-el": ("Outlook, plain text", "el", None, ("Από", "Στάλθηκε", "Προς", "Θέμα"), ": ",
                   lambda d: f"{_dow('el', d, True)}, {d.day} {_mon('el', d, True)} {d.year} {d.hour}:{d.minute:02d} "
                             f"{'πμ' if d.hour < 12 else 'μμ'}", "ΑΠ: ", "windows-1253", "text", "example.gr",
                   "Microsoft Outlook 16.0", "plain"),
    "outlook-he": ("Outlook, plain text", "he", None, ("מאת", "נשלח", "אל", "נושא"), ": ",
                   lambda d: f"{_dow('he', d, True)} {d.day:02d} {_mon('he', d, True)} {d.year} {_hm(d)}", "השב: ",
                   "windows-1255", "text", "example.co.il", "Microsoft Outlook 16.0", "plain"),
    "outlook-ar": ("Outlook, plain text", "ar", None, ("من", "تم الإرسال", "إلى", "الموضوع"), ": ",
                   lambda d: f"{_dow('ar', d, True)}، {d.day} {_mon('ar', d, True)}، {d.year} {d.hour}:{d.minute:02d} "
                             f"{'ص' if d.hour < 12 else 'م'}", "رد: ", "windows-1256", "text", "example.ae",
                   "Microsoft Outlook 16.0", "plain"),
}


def header_client_block(orig: Original, player: Player, key: str) -> list[str]:
    """The separator and header block the client writes above the quoted mail (text)."""
    _, loc, sep, labels, colon, when, *_ = HEADER_CLIENTS[key]
    d = local(orig.sent, loc)
    frm = f'"{orig.from_name}"<{orig.from_addr}>;' if key.startswith("qq") else \
        f"{orig.from_name}" if key == "foxmail" else f'"{orig.from_name}" <{orig.from_addr}>' if key == "notes" else \
        formataddr((orig.from_name, orig.from_addr))
    to = f'"{player.name}"<{player.email}>;' if key.startswith("qq") else \
        f'"{player.name}" <{player.email}>' if key == "notes" else formataddr((player.name, player.email))
    values = {"from": frm, "date": when(d), "to": to, "subject": orig.subject}
    order = {"发件人": "from", "From": "from", "Od": "from", "差出人": "from", "보낸사람": "from", "Kimden": "from",
             "Από": "from", "מאת": "from", "من": "from",
             "发送时间": "date", "Date": "date", "Datum": "date", "送信日時": "date", "날짜": "date", "Data": "date",
             "Gönderildi": "date", "Στάλθηκε": "date", "נשלח": "date", "تم الإرسال": "date",
             "收件人": "to", "To": "to", "Komu": "to", "宛先": "to", "받는사람": "to", "Do": "to", "Kime": "to",
             "Προς": "to", "אל": "to", "إلى": "to",
             "主题": "subject", "Subject": "subject", "Předmět": "subject", "件名": "subject", "제목": "subject",
             "Temat": "subject", "Konu": "subject", "Θέμα": "subject", "נושא": "subject", "الموضوع": "subject"}
    block = [f"{label}{colon}{values[order[label]]}" for label in labels]
    if sep:
        block.insert(0, sep.format(from_name=orig.from_name, from_addr=orig.from_addr))
    if key == "notes":
        block.insert(1, "")
    return block


def header_client(orig: Original, player: Player, answer: Answer, key: str, *, seed: str = "") -> bytes:
    """A reply by one of HEADER_CLIENTS: the answer, the client's separator
    and header block (in the client's language and date format), then pbem's
    mail unindented (Seznam wraps it in double quotes), as text, HTML or both."""
    seed = seed or orig.message_id + player.email + key
    name, loc, sep, labels, colon, when, prefix, charset, parts_kind, domain, mailer, quote = HEADER_CLIENTS[key]
    block = header_client_block(orig, player, key)
    quoted_text = (html_to_plain(body_inner(orig.html)) if orig.html and key not in ("outlook-ja", "outlook-tr",
                   "outlook-el", "outlook-he", "outlook-ar") else orig.text).replace("\r\n", "\n").rstrip("\n").split("\n")
    if quote == "seznam":
        quoted_text = ['"' + quoted_text[0]] + quoted_text[1:-1] + [quoted_text[-1] + '"']
    signature = [player.email, " "] if key == "foxmail" else []
    gap = ["", ""] if key != "notes" else [""]
    text = "\n".join(answer.lines + gap + signature + block + [""] + quoted_text) + "\n"
    inner = body_inner(orig.html) if orig.html else escape(orig.text, quote=False).replace("\n", "<br>")
    mine = "".join(f"<div>{escape(ln, quote=False) or '<br>'}</div>" for ln in answer.lines)
    head_rows = "".join(f"<div><b>{escape(b.split(colon.strip() or ':', 1)[0])}{colon.strip()}</b>"
                        f"{escape(b.split(colon.strip() or ':', 1)[1]) if colon.strip() in b else ''}</div>"
                        for b in block if b and b != (sep or "").format(from_name=orig.from_name, from_addr=orig.from_addr))
    sep_html = (f'<div style="font-size: 12px;font-family: Arial Narrow;padding:2px 0 2px 0;">{sep}</div>'
                if sep and key.startswith("qq") else f"<div>{escape(block[0])}</div>" if sep else "")
    rtl = ' dir="rtl"' if loc in ("he", "ar") else ""
    html = (f"<html><head><meta http-equiv=\"Content-Type\" content=\"text/html; charset={charset}\"></head>"
            f"<body{rtl}>{mine}<div><br></div>{sep_html}"
            f'<div style="font-size: 12px;background:#efefef;padding:8px;">{head_rows}</div><div><br></div>'
            f"{inner}</body></html>")
    mid = f"<{_hash('m' + seed, 8).upper()}.{_hash(seed, 16)}@{domain}>" if not key.startswith("qq") else \
        f"<tencent_{_hash(seed, 32).upper()}@qq.com>"
    common = [("From", addr(player.name, player.email, charset if charset != "iso-2022-jp" else "utf-8")),
              ("To", orig.to_reply), ("Subject", hdr(reply_subject(prefix, orig.subject), "utf-8")),
              ("Date", _date(seed, orig, loc)), ("Message-ID", mid), *_refs(orig), ("MIME-Version", "1.0")]
    if mailer:
        common.append(("X-Mailer", mailer))

    def enc(t: str) -> tuple[str, str]:
        try:
            t.encode(charset)
            cs = charset
        except UnicodeEncodeError:  # a character the client's charset lacks: it sends UTF-8 instead
            cs = "utf-8"
        if cs == "iso-2022-jp":
            return cs, "7bit"
        return cs, "base64"

    def body(t: str, cs: str, cte: str) -> str:
        if cte == "7bit":
            return t.replace("\r\n", "\n").encode(cs).decode("ascii")
        return base64.encodebytes(t.replace("\r\n", "\n").replace("\n", "\r\n").encode(cs)).decode("ascii")

    if parts_kind == "text":
        cs, cte = enc(text)
        head = _headers(common + [("Content-Type", f'text/plain; charset="{cs}"'), ("Content-Transfer-Encoding", cte)])
        return _crlf(head + "\n" + body(text, cs, cte))
    if parts_kind == "html":
        cs, cte = enc(html)
        head = _headers(common + [("Content-Type", f'text/html; charset="{cs}"'), ("Content-Transfer-Encoding", cte)])
        return _crlf(head + "\n" + body(html, cs, cte))
    boundary = f"----=_NextPart_{_hash('b' + seed, 8).upper()}_{_hash('c' + seed, 8).upper()}"
    tcs, tcte = enc(text)
    hcs, hcte = enc(html)
    head = _headers(common + [("Content-Type", f'multipart/alternative; boundary="{boundary}"')])
    return _crlf(head + "\n" + _multipart(boundary, [
        _part(f'text/plain; charset="{tcs}"', tcte, body(text, tcs, tcte)),
        _part(f'text/html; charset="{hcs}"', hcte, body(html, hcs, hcte)),
    ]))


def tuta(orig: Original, player: Player, answer: Answer, *, seed: str = "") -> bytes:
    """Tuta (Tutanota), German: HTML only, the answer in divs, three empty
    lines, the attribution "06.12.2026, 09:56 von pbem@…:" (a bare address),
    then the quote in a blockquote.tutanota_quote."""
    seed = seed or orig.message_id + player.email
    d = local(orig.sent, "de")
    attribution = f"{d:%d.%m.%Y}, {_hm(d)} von {orig.from_addr}:"
    inner = body_inner(orig.html) if orig.html else escape(orig.text, quote=False).replace("\n", "<br>")
    html = ("<html><head></head><body>" + "".join(f"<div>{escape(ln, quote=False) or '<br>'}</div>"
                                                 for ln in answer.lines)
            + f'<div dir="auto"><br></div><div dir="auto"><br></div><div dir="auto"><br></div>'
            f'<div dir="auto">{escape(attribution, quote=False)}<br></div><blockquote class="tutanota_quote" '
            f'style="border-left: 1px solid #93A3B8; padding-left: 10px; margin-left: 5px;">{inner}</blockquote>'
            "</body></html>")
    head = _headers([
        ("Date", format_datetime(local(orig.sent + timedelta(minutes=11), "de"))),
        ("From", addr(player.name, player.email)),
        ("Message-ID", f"<{base64.urlsafe_b64encode(bytes.fromhex(_hash(seed, 36))).decode()}@tuta.com>"),
        ("Subject", hdr(reply_subject("Re: ", orig.subject))),
        ("To", orig.to_reply), *_refs(orig), ("MIME-Version", "1.0"),
        ("Content-Type", "text/html; charset=UTF-8"), ("Content-Transfer-Encoding", "quoted-printable"),
    ])
    return _crlf(head + "\n" + qp(html, "utf-8"))


def neomutt(orig: Original, player: Player, answer: Answer, *, style: str = "bottom", seed: str = "") -> bytes:
    """neomutt with its default attribution "* pbem <addr> [2026-12-06 09:56 +0000]:",
    '> ' quoting of the text part, and a '-- ' signature; bottom- or top-posted."""
    seed = seed or orig.message_id + player.email
    d = local(orig.sent, "en-GB")
    attribution = f"* {orig.from_name} <{orig.from_addr}> [{d:%Y-%m-%d %H:%M %z}]:"
    quoted = [attribution] + quote_lines(orig.text.replace("\r\n", "\n").rstrip("\n").split("\n"))
    sig = ["", "-- ", player.name]
    lines = (quoted + [""] + answer.lines + sig) if style == "bottom" else (answer.lines + [""] + quoted + sig)
    head = _headers([
        ("Date", _date(seed, orig, "en-GB")), ("From", addr(player.name, player.email)), ("To", orig.to_reply),
        ("Subject", hdr(reply_subject("Re: ", orig.subject))),
        ("Message-ID", f"<{_hash(seed, 8)}{_hash('n' + seed, 8)}@{player.email.split('@')[1]}>"),
        *_refs(orig), ("MIME-Version", "1.0"), ("Content-Type", "text/plain; charset=utf-8"),
        ("Content-Disposition", "inline"), ("Content-Transfer-Encoding", "8bit"),
        ("User-Agent", "NeoMutt/20240425"),
    ])
    return _crlf(head.encode("ascii") + b"\n" + ("\n".join(lines) + "\n").encode("utf-8"))
