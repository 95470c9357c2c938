"""services/lobby/tables: the password's hash, and who is shown a private game."""
from pbem.services.core import access, accounts
from pbem.services.lobby import tables
from pbem.store.db import unit_of_work
from pbem.store.models import Invitation


def test_the_password_is_kept_as_a_salted_hash_and_checked():
    a, b = tables.hash_password("owl42"), tables.hash_password("owl42")
    assert a != b and "owl42" not in a and a.startswith("scrypt$16384$8$1$")  # a salt of its own each time
    assert tables.check_password(a, "owl42") and tables.check_password(b, " owl42 ")
    assert not tables.check_password(a, "Owl42") and not tables.check_password(a, "")
    assert not tables.check_password(None, "owl42") and not tables.check_password("scrypt$x", "owl42")
    # a mail client's typography reads as the web's plain keyboard
    assert tables.check_password(tables.hash_password("owl-42"), "owl\u201142")


def test_who_is_shown_a_private_game(sqlite_cfg):
    with unit_of_work() as s:
        ann, bob, cy, root = (accounts.register(s, f"{n}@x.test", n.title(), confirmed=True)[0]
                              for n in ("ann", "bob", "cy", "root"))
        root.is_admin = True
        public = tables.create(s, ann, "mini", 3, {"hand": "3"})
        private = tables.create(s, ann, "mini", 3, {"hand": "3"}, access="private")
        word = tables.create(s, ann, "mini", 3, {"hand": "3"}, password="owl42")
        s.add(Invitation(game_id=private.id, inviter_id=ann.id, email="cy@x.test"))
        s.flush()
        shown = {who: [t.game.id for t in tables.open_tables(s, u).rows] for who, u in
                 (("visitor", None), ("bob", bob), ("cy", cy), ("ann", ann), ("root", root))}
        assert shown["visitor"] == shown["bob"] == [public.id, word.id]
        assert shown["cy"] == shown["ann"] == shown["root"] == [public.id, private.id, word.id]
        assert [access.may_see(s, private, u) for u in (None, bob, cy, ann, root)] == [False, False, True, True, True]
