"""Your account: REGISTER, LANGUAGE, SEATS, NEWADDRESS."""
from __future__ import annotations

from pbem import i18n
from pbem.config import settings
from pbem.i18n import N_, _
from pbem.services.core import accounts, games, lifecycle
from pbem.services.core.errors import UserError
from pbem.store.addresses import seat_address

from ..context import Context, game_arg, need_user
from ..language import answer_language, mail_language
from ..lines import Line, language_code
from .base import Command, Family, Section, Usage, Where, Who, first_word_game

FAMILY = Family("Your account", 1)


def do_register(ctx: Context, line: Line) -> str:
    name = " ".join(line.args)
    user, created = accounts.register(ctx.session, ctx.sender, name, confirmed=True,
                                      language=mail_language(ctx.msg))  # a new account: the mail's language
    ctx.user = user
    with i18n.use(answer_language(ctx)):
        return _("welcome, %(name)s", name=user.name) if created else _("your name is now %(name)s", name=user.name)


def _languages() -> str:
    return ", ".join(f"{c} ({i18n.language_name(c)})" for c in i18n.LANGUAGES)


def do_language(ctx: Context, line: Line) -> str:
    """LANGUAGE [code or name]: the sender's language; alone, the current one
    and the list. Answered in the new language."""
    user = need_user(ctx)
    if not line.args:
        return _("your language is %(language)s; pbem speaks %(languages)s. LANGUAGE and a code changes it",
                 language=f"{user.language} ({i18n.language_name(user.language)})", languages=_languages()) \
            + "\n  " + _("e.g. %(example)s", example="LANGUAGE ru")
    code = language_code(" ".join(line.args))
    if code is None:
        raise UserError(_("%(code)s is not a language pbem speaks; it speaks %(languages)s",
                          code=" ".join(line.args)[:20], languages=_languages()),
                        example="LANGUAGE ru", code="bad_language")
    accounts.set_language(ctx.session, user, code)
    with i18n.use(code):
        return _("your language is now %(language)s: pbem writes to you in it from now on",
                 language=i18n.language_name(code))


def do_seats(ctx: Context, line: Line) -> str:
    """SEATS OWN | SEATS ANY: who may use the player's seat addresses."""
    user = need_user(ctx)
    choice = (line.args[0].upper() if line.args else "")
    if choice not in ("OWN", "ANY"):
        raise UserError(_("SEATS OWN (only your registered address may use your seats' reply addresses) or SEATS "
                          "ANY (any address you write from)"), example="SEATS OWN", code="bad_seats")
    user.seat_senders = choice.lower()
    ctx.session.add(user)
    if choice == "OWN":
        return _("only %(email)s may use your seats' reply addresses now; mail from any other address is "
                 "refused, and the seat's address renewed", email=user.email)
    return _("any address you write from may use your seats' reply addresses (you are told when it is not yours)")


def do_newaddress(ctx: Context, line: Line) -> str:
    user = need_user(ctx)
    gid = game_arg(line, ctx)
    seat = lifecycle.rotate_token(ctx.session, user, gid)
    if ctx.seat is None or ctx.seat.id == seat.id:  # the receipt comes from, and points to, the new address
        ctx.seat, ctx.game = seat, games.get(ctx.session, gid)
    return _("game #%(game)d: your seat's new reply address is %(address)s; the old one no longer works. Keep it "
             "to yourself: it is your key to the seat", game=gid, address=seat_address(gid, seat.token,
                                                                                     settings().domain))


REGISTER = Command(
    "REGISTER", do_register, FAMILY, who=Who.ANYONE, words_as_written=True,
    usage=(Usage(N_("REGISTER <name>"), N_("create your account (or change your name)"), Section.COMMANDS, 10),),
    doc="create your account for the address you write from (or change your name; names are unique)")

LANGUAGE = Command(
    "LANGUAGE", do_language, FAMILY, where=Where.ANY, read_only_alone=True,
    is_talk=lambda word, rest: not (word.isupper() or not rest.strip() or language_code(rest) is not None),
    usage=(Usage(N_("LANGUAGE [en|ru|bg|it]"),
                 N_("the language of your mail and pages (LANGUAGE alone: yours, and the list)"),
                 Section.COMMANDS, 30),),
    doc="the language of your mail and pages: `en`, `ru`, `bg` or `it` (or its name: `LANGUAGE русский`, "
        "`LANGUAGE italiano`); alone, your language and the list. A new account by mail starts in the language "
        "its first mail says (Content-Language, or a Cyrillic charset). On a seat's address: the language of "
        "that seat's player")

SEATS = Command(
    "SEATS", do_seats, FAMILY,
    is_talk=lambda word, rest: rest.strip().upper() not in ("OWN", "ANY"),  # "Seats 3 and 4 are slow" is talk
    usage=(Usage(N_("SEATS OWN | SEATS ANY"),
                 N_("only your registered address may use your seats' reply addresses, or any"),
                 Section.COMMANDS, 260),),
    doc="only your registered address may use your seats' reply addresses (mail from any other is refused, and "
        "the seat's address renewed), or any address you write from (the default; you are told when it is not "
        "yours)")

NEWADDRESS = Command(
    "NEWADDRESS", do_newaddress, FAMILY, where=Where.ANY, who=Who.PLAYER, destructive=True,
    names_game=first_word_game,
    usage=(Usage(N_("NEWADDRESS <game-id>"),
                 N_("a new secret reply address for your seat (the old one stops working)"),
                 Section.COMMANDS, 250),),
    doc="a new secret reply address for your seat; the old one stops working. Done once you confirm it (pbem "
        "mails you to ask)")
