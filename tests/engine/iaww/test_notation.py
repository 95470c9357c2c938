"""Notation (docs/notation/iaww.md): every form, errors, pending decisions, fuzzing."""
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as stx

from pbem.engine import (
    AmbiguousMoveError, GameOverError, IllegalMoveError, MoveError, MoveSyntaxError, NotYourTurnError,
    validate_options,
)
from pbem.engine.iaww.rules import Move, OVER

from .helpers import G, do, me, player, production_state, site, state


def _draft():
    return G.initial_state(3, 4, validate_options(G, 3, {}))


def test_pick_by_id_prefix_name_and_position():
    st = _draft()
    hand = me(st).hand
    first = hand[0].split("#")[0]
    assert G.parse_move(st, 0, f"pick {first}") == Move("pick", first)
    assert G.parse_move(st, 0, "pick 1") == Move("pick", first)
    assert G.parse_move(st, 0, "p 1") == Move("pick", first)
    assert G.parse_move(st, 0, first) == Move("pick", first)  # bare card in the draft
    assert G.parse_move(st, 0, f"  PICK   {first.upper()}  ") == Move("pick", first)
    last = hand[-1].split("#")[0]
    assert G.parse_move(st, 0, f"pick {len(hand)}") == Move("pick", last)


def test_card_names_with_spaces_hyphens_apostrophes():
    p = player(draft=["mega_drill", "king_solomons_mines", "alexanders_tomb", "wind_turbines"])
    st = state([p, player("noram_states")])
    assert G.parse_move(st, 0, "C mega-drill") == Move("c", "mega_drill")
    assert G.parse_move(st, 0, "C Mega Drill") == Move("c", "mega_drill")
    assert G.parse_move(st, 0, "c king solomon’s") == Move("c", "king_solomons_mines")
    assert G.parse_move(st, 0, "c king solomon's mines") == Move("c", "king_solomons_mines")
    assert G.parse_move(st, 0, "r alex") == Move("r", "alexanders_tomb")
    assert G.parse_move(st, 0, "construct wind") == Move("c", "wind_turbines")
    assert G.parse_move(st, 0, "recycle 4>e") == Move("r", "wind_turbines", "E")


def test_every_planning_and_production_form():
    p = player(kry=2, fin=1, gen=1, draft=["mega_drill", "zeppelin"],
               sites=[site("wind_turbines"), site("giant_tower", materials=2, gold=3), site("center_of_the_earth"),
                      site("juggernaut")])
    st = state([p, player("noram_states")])
    assert G.parse_move(st, 0, "R mega_drill>wind_turbines") == Move("r", "mega_drill", "wind_turbines#1")
    assert G.parse_move(st, 0, "r mega > wind") == Move("r", "mega_drill", "wind_turbines#1")
    assert G.parse_move(st, 0, "R mega_drill") == Move("r", "mega_drill")
    assert G.parse_move(st, 0, "K>juggernaut:e") == Move("kry", "", "juggernaut#1", 1)
    assert G.parse_move(st, 0, "k > juggernaut : krystallium") == Move("kry", "", "juggernaut#1", 5)
    assert G.parse_move(st, 0, "F>giant") == Move("fin", "", "giant_tower#1")
    assert G.parse_move(st, 0, "financier>giant") == Move("fin", "", "giant_tower#1")
    assert G.parse_move(st, 0, "gen>center") == Move("gen", "", "center_of_the_earth#1")
    assert G.parse_move(st, 0, "general > 3") == Move("gen", "", "center_of_the_earth#1")
    assert G.parse_move(st, 0, "discard juggernaut") == Move("discard", "", "juggernaut#1")
    assert G.parse_move(st, 0, "build giant_tower") == Move("build", "", "giant_tower#1")
    st2 = do(st, 0, "R mega_drill")
    assert G.parse_move(st2, 0, "m>wind") == Move("place", "", "wind_turbines#1", 0)
    assert G.parse_move(st2, 0, "place m>E") == Move("place", "", "E", 0)
    assert G.parse_move(st2, 0, "wind") == Move("place", "", "wind_turbines#1", 0)  # the one kind pending
    assert G.parse_move(st2, 0, "e") == Move("place", "", "E", 0)
    assert G.parse_move(st, 0, "AUTO") == Move("auto")
    st3 = do(st, 0, "C mega", "R zeppelin>E")
    for text in ("done", "pass", "end", "  DONE "):
        assert G.parse_move(st3, 0, text) == Move("done")


def test_tolerated_extras_and_guarded_mistakes():
    p = player(draft=["mega_drill", "zeppelin"], sites=[site("wind_turbines"), site("icebreaker")])
    st = state([p, player("noram_states")])
    assert G.parse_move(st, 0, "plan R mega_drill -> wind") == Move("r", "mega_drill", "wind_turbines#1")
    with pytest.raises(MoveSyntaxError) as e:
        G.parse_move(st, 0, "x icebreaker")  # never a silent discard
    assert "discard icebreaker" in e.value.reason
    with pytest.raises(MoveSyntaxError) as e:
        G.parse_move(st, 0, "C mega_drill, C zeppelin")
    assert "';'" in e.value.reason


def test_science_choice_forms():
    st = production_state([player(built=["research_center", "research_center#2"]), player("noram_states")], step=2)
    for text, kind in (("sci F", "financier"), ("sci financier", "financier"), ("science G", "general"),
                       ("SCI general", "general")):
        assert G.parse_move(st, 0, text) == Move("sci", kind)
    with pytest.raises(MoveSyntaxError):
        G.parse_move(st, 0, "sci gold")


def test_solo_swap_and_keep_forms():
    st = G.initial_state(1, 21, validate_options(G, 1, {}))
    hand = [i.split("#")[0] for i in me(st).draft]
    m = G.parse_move(st, 0, f"swap {hand[1]}, {hand[0]}")
    assert m.kind == "swap" and (m.card, m.target) == tuple(sorted(hand[:2]))
    assert G.parse_move(st, 0, "swap 1 2") == m
    st = G.apply(st, 0, m)
    shown = me(st).shown[0].split("#")[0]
    assert G.parse_move(st, 0, f"keep {shown}") == Move("keep", shown)
    assert G.parse_move(st, 0, "keep 1") == Move("keep", shown)
    with pytest.raises(IllegalMoveError) as e:
        G.parse_move(st, 0, "auto")
    assert "keep" in e.value.reason


def test_instances_when_two_copies_are_under_construction():
    p = player(sites=[site("icebreaker", 1, energy=1), site("icebreaker", 2)])
    st = production_state([p, player("noram_states")], step=1)
    with pytest.raises(AmbiguousMoveError) as e:
        G.parse_move(st, 0, "e>icebreaker")
    assert "icebreaker#1" in e.value.reason and e.value.examples
    assert G.parse_move(st, 0, "e>icebreaker#2") == Move("place", "", "icebreaker#2", 1)
    assert G.format_move(st, 0, Move("place", "", "icebreaker#2", 1)) == "e>icebreaker#2"
    assert G.parse_move(st, 0, "e>2") == Move("place", "", "icebreaker#2", 1)


def test_error_messages_have_code_reason_and_examples():
    st = _draft()
    with pytest.raises(MoveSyntaxError) as e:
        G.parse_move(st, 0, "xyzzy")
    assert e.value.code == "syntax" and e.value.examples and "xyzzy" in str(e.value)
    not_in_hand = next(c for c in ("zeppelin", "icebreaker", "time_travel", "museum", "atlantis")
                       if not any(i.startswith(c + "#") for i in me(st).hand))
    with pytest.raises(IllegalMoveError) as e:
        G.parse_move(st, 0, f"pick {not_in_hand}")
    assert e.value.code == "illegal" and "not in your hand" in e.value.reason and e.value.examples
    st1 = G.apply(st, 0, G.legal_moves(st, 0)[0])
    with pytest.raises(NotYourTurnError):
        G.parse_move(st1, 0, "pick 1")
    with pytest.raises(AmbiguousMoveError) as e:
        G.parse_move(state([player(draft=["secret_laboratory", "secret_society"]), player()]), 0, "C secret")
    assert "write more" in e.value.reason


def test_game_over_error():
    from pbem.engine.iaww.rules import replace
    st = replace(state([player(), player()]), phase=OVER)
    with pytest.raises(GameOverError):
        G.parse_move(st, 0, "done")
    with pytest.raises(GameOverError):
        G.apply(st, 0, Move("done"))


def test_pending_decisions_fallback():
    # a recycle without target leaves the cube to place: the seat stays to move
    p = player(draft=["mega_drill"], sites=[site("wind_turbines")])
    st = do(state([p, player("noram_states")]), 0, "R mega_drill")
    assert me(st).cubes == (1, 0, 0, 0, 0) and 0 in G.to_move(st)
    assert "place 1 materials" in G.view(st, 0)["you"]["todo"]
    # the science choice stays pending until chosen (or defaulted by done)
    st = production_state([player(built=["research_center", "research_center#2"]), player("noram_states")], step=2)
    assert me(st).sci and "sci financier" in G.view(st, 0)["you"]["todo"]


def test_notation_help_lists_the_options_in_words():
    """The "Your move." block lists each pick with what it is, and what ends the pick;
    the notation reference for a seat with nothing to decide (and HELP)."""
    st = _draft()
    text = G.notation_help(st, 0)
    picks = [m for m in G.legal_moves(st, 0)]
    for m in picks:
        assert f"{G.format_move(st, 0, m)} - {G.explain_move(st, 0, m)}".split()[0] in text
    assert "into your draft area" in text and "hands pass left" in text
    assert "Notation (" in G.notation_help(st, None) and "Your options" not in G.notation_help(st, None)


def test_notation_help_fits_a_78_column_mail():
    # review: four help lines and the "Legal now" line were 81-167 columns
    st = _draft()
    for seat in (0, None):
        text = G.notation_help(st, seat)
        assert max(len(line) for line in text.splitlines()) <= 78, text
        assert len(("Your move. " + text).splitlines()[0]) <= 80
    # a move is never split over two lines
    lines = G.notation_help(st, 0).splitlines()
    assert all(line.startswith("  pick ") or line.startswith("    ") for line in lines[1:-2])


def test_examples_do_not_lead_with_discard():
    # review: with every cube placed the first example was "discard <card>",
    # and in planning "discard <drafted card>" (legal only before its C)
    p = player(sites=[site("zeppelin"), site("icebreaker")])
    st = production_state([p, player("noram_states")], step=3)
    ex = G.view(st, 0)["you"]["examples"]
    assert ex[:2] == ["done", "auto"] and ex[-1].startswith("discard")
    st = state([player(draft=["zeppelin", "icebreaker"]), player("noram_states")])
    ex = G.view(st, 0)["you"]["examples"]
    assert ex and not any(e.startswith(("discard", "build")) for e in ex)


def test_numbers_stay_as_shown_while_a_mail_is_applied():
    # review: numbers counted in the live lists, so "C 1; R 2>E" recycled the
    # card shown as 3, and "m>1; m>1; K>3:e" missed once card 1 was completed
    p = player(draft=["zeppelin", "icebreaker", "wind_turbines"])
    st = do(state([p, player("noram_states")]), 0, "C 1", "R 2>E")
    assert [s.inst for s in me(st).sites] == ["zeppelin#1"] and st.discard == ("icebreaker#1",)
    assert me(st).draft == ("wind_turbines#1",)
    assert "  3. wind_turbines" in G.render_text(G.view(st, 0))  # the board keeps the number
    html = G.render_html(G.view(st, 0))
    assert "Your draft area (C or R each)" in html and ">3</td><td" in html
    with pytest.raises(IllegalMoveError) as e:
        G.parse_move(st, 0, "R 1>E")
    assert "already decided" in e.value.reason
    assert G.parse_move(st, 0, "C 3") == Move("c", "wind_turbines")
    p = player(kry=1, sites=[site("wind_turbines"), site("zeppelin"), site("research_center", materials=3)])
    st = production_state([p, player("noram_states")], step=0)
    st = do(st, 0, "m>1", "m>1", "K>3:e")
    assert [i.split("#")[0] for i in me(st).built] == ["wind_turbines", "research_center"]
    with pytest.raises(IllegalMoveError) as e:
        G.parse_move(st, 0, "F>1")
    assert "already completed" in e.value.reason
    assert "  2. zeppelin" in G.render_text(G.view(st, 0))
    # a new board (next decision point) numbers from 1 again
    st = do(do(st, 0, "done"), 1, "done")
    assert "  1. zeppelin" in G.render_text(G.view(st, 0))


def test_solo_hand_numbers_follow_the_board_after_a_keep():
    st = G.initial_state(1, 3, {})
    hand = list(me(st).draft)
    st = do(st, 0, "swap 1,2")
    kept = me(st).shown[0]
    assert f"Revealed (keep one):\n  1. {kept.split('#')[0]} " in G.render_text(G.view(st, 0))
    st = do(st, 0, "keep 1")
    board = [c["inst"] for c in G.view(st, 0)["you"]["solo_hand"]]
    assert board == sorted(hand[2:] + [kept], key=lambda i: (i.split("#")[0], int(i.split("#")[1])))
    assert [c["no"] for c in G.view(st, 0)["you"]["solo_hand"]] == [1, 2, 3, 4]
    st = do(st, 0, "R 4>E")
    assert board[3] in st.discard
    with pytest.raises(IllegalMoveError) as e:
        G.parse_move(st, 0, "swap 3,4")
    assert "before your first C or R" in e.value.reason


def test_todo_mentions_the_c_still_owed_by_a_card_used_early():
    p = player(draft=["mega_drill", "wind_turbines", "zeppelin"])
    st = do(state([p, player("noram_states")]), 0, "R mega_drill>wind")
    todo = G.view(st, 0)["you"]["todo"]
    assert "still write C for wind_turbines" in todo and "each of your 1 card(s)" in todo


def test_a_cube_of_the_wrong_kind_names_the_step():
    st = production_state([player(sites=[site("zeppelin"), site("wind_turbines")]), player("noram_states")], step=0)
    with pytest.raises(IllegalMoveError) as e:
        G.parse_move(st, 0, "e>zeppelin")
    assert e.value.reason == ("you have no energy cube to place: this is the materials step"
                              " and you have 2 materials to place")
    st = state([player(draft=["zeppelin", "icebreaker"]), player("noram_states")])
    with pytest.raises(IllegalMoveError) as e:
        G.parse_move(st, 0, "m>E")
    assert "recycled card gives one" in e.value.reason


def test_k_without_arrow_is_not_read_as_keep():
    # review: "K icebreaker" (a Krystallium without the >) answered "there is nothing to keep"
    st = production_state([player(kry=1, sites=[site("icebreaker")]), player("noram_states")], step=0)
    with pytest.raises(MoveSyntaxError) as e:
        G.parse_move(st, 0, "K icebreaker")
    assert "K>icebreaker" in e.value.reason


def test_bad_apply_changes_nothing():
    st = _draft()
    with pytest.raises(IllegalMoveError):
        G.apply(st, 0, Move("done"))
    with pytest.raises(IllegalMoveError):
        G.apply(st, 0, "pick 1")


# ---------------------------------------------------------------- fuzzing


def _positions():
    out = [_draft()]
    p = player(kry=1, fin=1, gen=1, draft=["mega_drill", "zeppelin", "wind_turbines"],
               sites=[site("icebreaker"), site("icebreaker", 2), site("giant_tower"), site("juggernaut")])
    out.append(state([p, player("noram_states")]))
    out.append(production_state([p, player("noram_states")], step=2))
    solo = G.initial_state(1, 21, validate_options(G, 1, {}))
    out.append(solo)
    out.append(G.apply(solo, 0, [m for m in G.legal_moves(solo, 0) if m.kind == "swap"][0]))
    return out


POSITIONS = _positions()
WORDS = ["pick", "c", "r", "k", "f", "gen", "g", "m", "e", "x", "s", "sci", "swap", "keep", "discard", "build",
         "done", "auto", "ice", "icebreaker#2", "giant", "jugg", "mega", "zep", "wind", "1", "2", "9", ">", ":",
         ",", ";", "#", " ", "E", "place", "financier", "general"]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(stx.sampled_from(range(len(POSITIONS))),
       stx.one_of(stx.text(max_size=40), stx.lists(stx.sampled_from(WORDS), max_size=6).map("".join),
                  stx.lists(stx.sampled_from(WORDS), max_size=5).map(" ".join)))
def test_fuzz_parse_is_a_legal_move_or_a_move_error(i, text):
    st = POSITIONS[i]
    seat = min(G.to_move(st))
    try:
        m = G.parse_move(st, seat, text)
    except MoveError:
        return
    assert m in G.legal_moves(st, seat), (text, m)
