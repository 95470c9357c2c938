"""What the player wrote, without what they quoted.

Quotes are cut by what they are, not only by fingerprints of clients:

* every mail pbem sends starts with a marker line (``MARKER``; a marked
  element in HTML, see parse.html_to_text), so reading stops at the first
  sign of our own mail however a client quotes it;
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
# our mails' own structure, for mails quoted from before the marker existed
OWN_RE = re.compile(r"^(={3} pbem board ={3}|(results for your mail|итоги вашего письма|резултати от писмото ви|"
                    r"esito della tua mail):$)", re.I)  # the receipts' heading in each language

MAX_LINE = 400  # longer lines are never attribution, separator or signature lines

# the verbs of attribution lines ("... wrote:"), en de fr es pt it nl pl ru uk bg cs sk sv da no fi hu tr ro
_VERBS = (
    r"wrote|writes|schrieb|schreef|a écrit|a ecrit|escribió|escribio|escreveu|ha scritto|scrisse|"
    r"napisał\(a\)|napisała|napisał|napisal|pisze|написал\(а\)|написала|написал|пишет|пише|"
    r"написав\(ла\)|написав|написала|написа|napsal\(a\)|napsala|napsal|skrev|kirjoitti|írta|yazdı|a scris|"
    r"het volgende geschreven|geschreven|nadesłał\(a\)|nadesłał"
)
# "... wrote:" ending a line; a parenthesis may follow the verb (Gmail in Portuguese:
# "pbem <x> escreveu (segunda, 23/11/2026 à(s) 10:00):")
ATTRIBUTION_END_RE = re.compile(rf"(?:(?:^|[\s>\"')\]])(?:{_VERBS})\s*(?:\(.{{0,80}}\)\s*)?|작성하였습니다|작성|写道|寫道)[:：]\s*$",
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
    r"původní zpráva|ursprungligt meddelande|oprindelig meddelelse|opprinnelig melding|alkuperäinen viesti"
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
    r"von meinem .{1,120} gesendet|gesendet (von|mit|aus) .{1,120}|"
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


def _is_attribution_end(s: str) -> bool:
    return bool(s) and len(s) < MAX_LINE and s.endswith((":", "：")) and bool(
        ATTRIBUTION_END_RE.search(s) or ADDRESS_END_RE.search(s) or V2_END_RE.search(s))


def strip_reply(text: str) -> Stripped:
    lines = (text or "").split("\n")
    total = sum(1 for ln in lines if ln.strip())
    kept: list[str] = []
    i, n = 0, len(lines)
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
        if len(s) < MAX_LINE and _stops(lines, i, s):
            break
        if VALEDICTION_RE.match(s) and any(k.strip() for k in kept):
            kept.append(line)  # shown to the player as ignored talk; what follows is the signature
            break
        span = _attribution(lines, i)
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
