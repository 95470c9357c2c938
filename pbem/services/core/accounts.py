"""Users and identity: addresses, display names, renaming, a new address."""
from __future__ import annotations

import re
import secrets
from email.utils import parseaddr

from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, select

from pbem import i18n
from pbem.i18n import _
from pbem.store import names
from pbem.store.models import User

from . import clocks, games, seating, sessions
from .errors import UserError

NAME_RE = re.compile(r"^[^\x00-\x1f<>@]{1,40}$")
EMAIL_EXAMPLE = "anna@example.org"


def normalise_email(addr: str) -> str:
    return parseaddr(addr or "")[1].strip().lower()


def valid_email(addr: str) -> str:
    """``addr`` as pbem stores it (lower case), or a UserError saying what is wrong with it. The syntax
    is checked by email-validator, without looking the domain up; the ``.test`` names (RFC 2606, the
    test suite's) are allowed."""
    from email_validator import EmailNotValidError, validate_email  # imported when an address is checked

    try:
        return validate_email((addr or "").strip(), check_deliverability=False,
                              test_environment=True).normalized.lower()
    except EmailNotValidError as e:
        raise UserError(_("that is not an e-mail address: %(why)s", why=e), example=EMAIL_EXAMPLE,
                        code="bad_email") from None


def find_user(s: Session, email: str) -> User | None:
    email = normalise_email(email)
    if not email:
        return None
    return s.exec(select(User).where(User.email == email)).first()


def clean_name(name: str) -> str:
    """The name as it is stored and shown (store/names.display), or a UserError."""
    name = names.display(name)
    if not NAME_RE.match(name):
        raise UserError(
            _("a name is 1 to 40 characters, without '<', '>' or '@'"),
            example="REGISTER Anna K.",
            code="bad_name",
        )
    if names.is_reserved(name):
        raise UserError(_("the name %(name)s is what pbem calls bots and empty seats; please choose another",
                          name=repr(name)),
                        example="REGISTER Anna K.", code="name_reserved")
    return name


def _holder(s: Session, key: str) -> User | None:
    return s.exec(select(User).where(User.name_key == key)).first()


def _free_name(s: Session, name: str) -> str:
    """A name like ``name`` that nobody holds: "Ann 2", "Ann 3", ..."""
    for n in range(2, 1000):
        tail = f" {n}"
        candidate = name[:40 - len(tail)].rstrip() + tail
        if _holder(s, names.key(candidate)) is None and not names.is_reserved(candidate):
            return candidate
    return name[:31] + " " + secrets.token_hex(4)


def _name_taken(s: Session, name: str) -> UserError:
    free = _free_name(s, name)
    return UserError(_("the name %(name)s is taken (names are told apart without case, invisible characters or "
                       "look-alike letters); %(free)s is free", name=repr(name), free=repr(free)),
                     example=f"REGISTER {free}", code="name_taken")


def _set_name(s: Session, user: User, name: str) -> None:
    """Give ``user`` the name (already cleaned) if its key is free; refuse otherwise."""
    key = names.key(name)
    holder = _holder(s, key)
    if holder is not None and holder.id != user.id:
        if name == user.name and user.confirmed:  # a name shared before names were unique (0010) stays as it was
            return
        raise _name_taken(s, name)
    user.name, user.name_key = name, key
    s.add(user)
    try:
        with s.begin_nested():
            s.flush()
    except IntegrityError:  # another transaction took the name since we looked
        raise _name_taken(s, name) from None


def rename(s: Session, user: User, name: str) -> User:
    _set_name(s, user, clean_name(name))
    return user


def register(s: Session, email: str, name: str, *, confirmed: bool = False,
             language: str | None = None) -> tuple[User, bool]:
    """Create the account for ``email``, or rename it. Returns (user, created).
    ``language`` is the new account's first language (the browser's
    ``Accept-Language``, or what the first mail said); an existing account's
    language is changed only by its owner (:func:`set_language`)."""
    email = valid_email(email)
    name = clean_name(name)
    user = find_user(s, email)
    if user is None:
        key = names.key(name)
        if _holder(s, key) is not None:
            raise _name_taken(s, name)
        user = User(email=email, name=name, name_key=key, confirmed=confirmed,
                    language=i18n.normalize(language))
        try:
            with s.begin_nested():
                s.add(user)
                s.flush()
            return user, True
        except IntegrityError:  # another transaction made this account (a double click), or took the name
            user = find_user(s, email)
            if user is None:
                raise _name_taken(s, name) from None
    _set_name(s, user, name)
    if confirmed:
        user.confirmed = True
    s.add(user)
    s.flush()
    return user, False


def set_language(s: Session, user: User, code: str) -> User:
    """``user`` chose ``code`` (profile, ``LANGUAGE ru``): every later mail and
    page speaks it. An unsupported code is refused with the list."""
    if not i18n.supported(code):
        shown = ", ".join(f"{c} ({i18n.language_name(c)})" for c in i18n.LANGUAGES)
        raise UserError(i18n._("%(code)s is not a language pbem speaks; it speaks %(list)s",
                               code=(code or "").strip()[:20] or "?", list=shown),
                        example="LANGUAGE ru", code="bad_language")
    user.language = i18n.normalize(code)
    user.language_chosen = True
    s.add(user)
    s.flush()
    return user


def guess_language(s: Session, user: User, code: str | None) -> None:
    """A guess at ``user``'s language (a mail's Content-Language or charset),
    kept only while the user has not chosen one."""
    if code and i18n.supported(code) and not user.language_chosen and user.language != i18n.normalize(code):
        user.language = i18n.normalize(code)
        s.add(user)


def change_email(s: Session, user: User, email: str) -> User:
    """Give ``user`` the address ``email`` (proven by a link mailed to it). Every session of the
    user ends, and every link not yet spent: whoever held them held them for the old address."""
    email = valid_email(email)
    other = find_user(s, email)
    if other is not None and other.id != user.id:
        raise UserError(_("%(email)s already has an account on pbem, so it cannot become the address of another; "
                          "nothing was changed (log in with it to use that account)", email=email), example="/login",
                        code="address_taken")
    user.email = email
    s.add(user)
    try:
        with s.begin_nested():
            s.flush()
    except IntegrityError:
        raise UserError(_("%(email)s has just been given to another account; nothing was changed", email=email),
                        example="/login", code="address_taken") from None
    sessions.end_all(s, user)
    return user


def _account(s: Session, email: str, example: str) -> User:
    user = find_user(s, email)
    if user is None:
        raise UserError(f"no account has the address {normalise_email(email) or email!r}; "
                        f"`pbem admin find <part of an address or name>` finds it", example=example,
                        code="no_account")
    return user


def _audit(s: Session, by: str, action: str, user: User, detail: str) -> None:
    """An AuditLog row for an operator's action on an account (as the web's admin actions have): no
    game, no user of pbem did it, so ``detail`` says who ran it (the operator's login on the machine)."""
    from pbem.store.models import AuditLog

    s.add(AuditLog(user_id=None, game_id=None, action=action,
                   detail=f"{detail} (account #{user.id} {user.email}; by {by} with pbem admin)"))


def set_admin(s: Session, email: str, admin: bool = True, *, by: str = "operator") -> User:
    """Flag (or unflag) the account of ``email`` as an administrator."""
    user = _account(s, email, "pbem admin grant ann@example.org")
    changed = bool(user.is_admin) != admin
    user.is_admin = admin
    s.add(user)
    if changed:
        _audit(s, by, "admin_grant" if admin else "admin_revoke", user,
               "made an administrator" if admin else "no longer an administrator")
    s.flush()
    return user


def disable(s: Session, email: str, reason: str, *, by: str = "operator") -> User:
    """Disable the account of ``email``: its mail is refused (answered once a day,
    mail/pipeline.refuse_disabled), its web sessions end and its login is refused; its seats stay,
    and miss their deadlines as any silent seat does (the game's no-move policy)."""
    from pbem.store.models import utcnow

    reason = (reason or "").strip()
    if not reason:
        raise UserError("disabling an account needs a reason (kept in the audit log)",
                        example='pbem admin disable ann@example.org --reason "abusive table talk"',
                        code="no_reason")
    user = _account(s, email, 'pbem admin disable ann@example.org --reason "abusive table talk"')
    if user.disabled_at is None:
        user.disabled_at, user.disabled_told_at = utcnow(), None
        s.add(user)
        sessions.end_all(s, user)
        _audit(s, by, "account_disable", user, f"disabled. Reason: {reason[:2000]}")
        s.flush()
    return user


def enable(s: Session, email: str, *, by: str = "operator") -> User:
    user = _account(s, email, "pbem admin enable ann@example.org")
    if user.disabled_at is not None:
        user.disabled_at = user.disabled_told_at = None
        s.add(user)
        _audit(s, by, "account_enable", user, "enabled again")
        s.flush()
    return user


def search(s: Session, part: str = "", *, admins: bool = False, disabled: bool = False,
           limit: int = 200) -> list[User]:
    """Accounts whose address or name contains ``part`` (any case), newest first."""
    from sqlalchemy import func, or_

    q = select(User)
    part = (part or "").strip().lower()
    if part:
        like = "%" + part.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        q = q.where(or_(User.email.like(like, escape="\\"), func.lower(User.name).like(like, escape="\\")))
    if admins:
        q = q.where(User.is_admin == True)  # noqa: E712
    if disabled:
        q = q.where(User.disabled_at.is_not(None))
    return list(s.exec(q.order_by(User.id.desc()).limit(limit)))


# ---------------------------------------------------------------- the time zone (TIMEZONE)

TIMEZONE_EXAMPLE = "TIMEZONE Europe/Sofia"


def find_zone(word: str) -> str:
    """The IANA time zone a player means: its name in any case ("europe/sofia"), or a city alone when one zone
    has it ("Sofia", "new york", "Sao_Paulo"); UTC and GMT. Anything else is refused with the nearest names."""
    from difflib import get_close_matches
    from zoneinfo import available_timezones

    zones = available_timezones()
    want = (word or "").strip().replace(" ", "_")
    if not want:
        raise UserError(i18n._("TIMEZONE needs the name of a time zone"), example=TIMEZONE_EXAMPLE, code="bad_tz")
    by_lower = {z.lower(): z for z in zones}
    if want.lower() in by_lower:
        return by_lower[want.lower()]
    cities = [z for z in zones if z.lower().rsplit("/", 1)[-1] == want.lower() and not z.startswith(("Etc/", "SystemV/"))]
    if len(cities) == 1:
        return cities[0]
    near = cities or get_close_matches(want, sorted(zones), n=3, cutoff=0.6) or \
        get_close_matches(want.lower(), sorted(by_lower), n=3, cutoff=0.6)
    near = [by_lower.get(z, z) for z in near]
    if near:
        raise UserError(i18n._("%(zone)s is not a time zone pbem knows; did you mean %(near)s?", zone=word[:40],
                               near=", ".join(near)), example=f"TIMEZONE {near[0]}", code="bad_tz")
    raise UserError(i18n._("%(zone)s is not a time zone pbem knows: write a region and a city, as in "
                           "Europe/Sofia or America/New_York", zone=word[:40]), example=TIMEZONE_EXAMPLE,
                    code="bad_tz")


def set_timezone(s: Session, user: User, zone: str) -> str:
    """The user's time zone (TIMEZONE by mail, the profile): their dates and hours are read and written in
    it, and their running deadlines are worked out again (a day of absence or a weekend is a day of theirs)."""
    name = find_zone(zone)
    user.timezone = name
    s.add(user)
    s.flush()
    for g in games.list_mine(s, user):
        if g.status != "running":
            continue
        seat = seating.seat_of(s, g.id, user.id)
        if seat is not None and not seat.resigned and seat.clock_started_at is not None:
            clocks.recompute(s, g, seat)
    return name
