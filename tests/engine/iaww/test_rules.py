"""Focused tests for the rules and every [ruling] of RULES.md (section in the name)."""
from collections import Counter

import pytest

from pbem.engine import IllegalMoveError, OptionError, validate_options
from pbem.engine.iaww.data import CARDS, EMPIRE_FACES, INSTANCES, SCENARIOS
from pbem.engine.iaww.rules import (
    replace,
    OVER, PLAN, PROD, Move, auto_target, production, score, sci_default,
)

from .helpers import G, built_ids, do, me, player, production_state, site, site_of, state


def opts(n, **kw):
    return validate_options(G, n, kw)


# ---------------------------------------------------------------- §1 data


def test_s1_3_deck_composition():
    assert len(INSTANCES) == 150 and len(CARDS) == 78
    copies = Counter()
    distinct = Counter()
    for c in CARDS.values():
        copies[c.type] += c.copies
        distinct[c.type] += 1
    assert copies == {"structure": 50, "vehicle": 31, "research": 23, "project": 29, "discovery": 17}
    assert distinct == {"structure": 9, "vehicle": 9, "research": 23, "project": 20, "discovery": 17}


def test_s1_5_empire_faces():
    assert EMPIRE_FACES[("aztec_empire", "A")].prod == (0, 2, 0, 0, 1)
    assert EMPIRE_FACES[("aztec_empire", "A")].vp_per == (3, "discovery")
    for e in ("aztec_empire", "federation_of_asia", "noram_states", "panafrican_union", "republic_of_europe"):
        assert EMPIRE_FACES[(e, "B")].prod == (2, 1, 1, 0, 0) and EMPIRE_FACES[(e, "B")].vp_per is None


def test_s1_4_per_type_counts_itself_and_never_the_empire_or_unfinished():
    assert production(player(built=["neuroscience"]), "B", 2) == 1 + 1
    assert production(player(built=["robot_assistants"]), "B", 0) == 2 + 0
    assert production(player(built=["robot_assistants", "wind_turbines"], sites=[site("recycling_plant")]),
                      "B", 0) == 2 + 1
    p = player(built=["university", "giant_tower"])
    assert score(p, "A")["type"] == 0 and production(p, "B", 2) == 1 + 2


def test_s1_1_tokens_unlimited():
    p = player(fin=100)
    st = production_state([p, player("noram_states", built=["recycling_plant"])], step=0)
    assert me(st, 1).fin == 1 and me(st, 0).fin == 100


# ---------------------------------------------------------------- §3 setup


def test_s3_1_face_defaults_and_scenario():
    assert G.initial_state(3, 1, opts(3)).face == "A"
    assert G.initial_state(1, 1, opts(1)).face == "B"
    assert G.initial_state(1, 1, opts(1, scenario="S1")).face == "B"
    assert G.initial_state(1, 1, opts(1, scenario="S1", face="A")).face == "A"
    assert G.initial_state(4, 1, opts(4, face="B")).face == "B"
    with pytest.raises(OptionError):
        G.initial_state(3, 1, opts(3, scenario="S2"))
    with pytest.raises(OptionError):
        validate_options(G, 3, {"face": "C"})


def test_s3_2_random_distinct_empires_and_block_deal():
    st = G.initial_state(5, 9, opts(5))
    assert len({p.empire for p in st.players}) == 5
    seen = [G.initial_state(2, s, opts(2)).players[0].empire for s in range(20)]
    assert len(set(seen)) > 1
    # blocks of N from the top in seat order: the hands plus the deck are the shuffled 150
    cards = [c for p in st.players for c in p.hand] + list(st.deck)
    assert sorted(cards) == sorted(INSTANCES)


def test_s3_determinism_same_seed_same_game():
    assert G.initial_state(4, 42, opts(4)) == G.initial_state(4, 42, opts(4))
    assert G.initial_state(4, 42, opts(4)) != G.initial_state(4, 43, opts(4))


def test_d12_consult_option():
    assert G.initial_state(3, 1, opts(3, consult="2,3")).consult == (1, 2)
    assert G.initial_state(3, 1, opts(3, consult="yes")).consult == (0, 1, 2)
    assert G.initial_state(3, 1, opts(3)).consult == ()
    with pytest.raises(OptionError):
        G.initial_state(2, 1, opts(2, consult="4"))
    with pytest.raises(OptionError):
        opts(2, consult="maybe")


def test_s14_1_solo_empire_option():
    st = G.initial_state(1, 1, opts(1, empire="noram_states"))
    assert me(st).empire == "noram_states"
    with pytest.raises(OptionError):
        G.initial_state(2, 1, opts(2, empire="noram_states"))


# ---------------------------------------------------------------- §5 draft


def test_s5_hand_sorted_by_id_and_pick_hidden_until_all_picked():
    st = G.initial_state(3, 4, opts(3))
    for p in st.players:
        assert list(p.hand) == sorted(p.hand, key=lambda i: (i.split("#")[0], int(i.split("#")[1])))
    m = G.legal_moves(st, 0)[0]
    st2 = G.apply(st, 0, m)
    assert G.to_move(st2) == {1, 2}
    assert st2.players[0].pick and not st2.players[0].draft
    v1 = G.view(st2, 1)
    assert m.card not in str(v1["seats"][0]) and v1["seats"][0]["draft"] == []
    assert not G.reveals(st, st2)
    st3 = G.apply(G.apply(st2, 1, G.legal_moves(st2, 1)[0]), 2, G.legal_moves(st2, 2)[0])
    assert all(len(p.draft) == 1 for p in st3.players) and st3.step == 2


def test_s5_no_other_actions_during_the_draft():
    st = G.initial_state(3, 4, opts(3))
    assert {m.kind for m in G.legal_moves(st, 0)} == {"pick"}
    with pytest.raises(IllegalMoveError):
        G.parse_move(st, 0, "done")


def test_s13_two_players_leftovers_discarded_without_pass():
    st = G.initial_state(2, 8, opts(2))
    for _ in range(6):
        for seat in (0, 1):
            st = G.apply(st, seat, G.legal_moves(st, seat)[0])
    held = [p.hand for p in st.players]
    for seat in (0, 1):
        st = G.apply(st, seat, G.legal_moves(st, seat)[0])
    left = [tuple(c for c in held[s] if c not in st.players[s].draft) for s in (0, 1)]
    assert all(len(x) == 3 for x in left)
    assert st.discard == left[0] + left[1]
    assert st.phase == PLAN


# ---------------------------------------------------------------- §6 planning


def test_s6_recycled_cube_waits_while_the_player_constructs_first():
    """The two-pass [ruling]: a recycle cube can go onto a card constructed later in the same planning."""
    p = player(draft=["mega_drill", "wind_turbines"])
    st = state([p, player("noram_states")])
    st = do(st, 0, "R mega_drill")
    assert me(st).cubes == (1, 0, 0, 0, 0)
    st = do(st, 0, "C wind_turbines", "m>wind_turbines")
    assert site_of(me(st), "wind_turbines").filled[0] == 1


def test_s6_two_passes_an_action_may_name_a_drafted_card_before_its_c():
    """[ruling] all C decisions first, in the order listed, then the rest in the order listed."""
    p = player(draft=["recycling_plant", "mega_drill", "wind_turbines", "zeppelin", "icebreaker"])
    st = state([p, player("noram_states")])
    st = do(st, 0, "C recycling_plant", "R mega_drill>wind_turbines", "C zeppelin", "C wind_turbines",
            "C icebreaker")
    assert [s.inst.split("#")[0] for s in me(st).sites] == ["recycling_plant", "zeppelin", "wind_turbines",
                                                             "icebreaker"]
    assert site_of(me(st), "wind_turbines").filled[0] == 1
    assert me(st).early == ()
    st = do(st, 0, "done")
    assert me(st).done


def test_s6_two_passes_a_named_card_still_needs_its_c():
    p = player(kry=1, draft=["mega_drill", "wind_turbines", "research_center"])
    st = do(state([p, player("noram_states")]), 0, "R mega_drill>wind", "K>research_center:e")
    with pytest.raises(IllegalMoveError) as e:
        G.parse_move(st, 0, "done")
    assert "C wind_turbines" in e.value.reason
    with pytest.raises(IllegalMoveError):
        G.parse_move(st, 0, "R wind_turbines")  # a card gets one decision: it is C
    st = do(st, 0, "C research_center", "C wind_turbines", "done")
    assert [s.inst for s in me(st).sites] == ["research_center#1", "wind_turbines#1"]
    assert site_of(me(st), "research_center").filled[1] == 1


def test_s6_two_passes_with_two_copies_and_own_cube():
    p = player(draft=["recycling_plant", "recycling_plant#2"])
    st = state([p, player("noram_states")])
    with pytest.raises(IllegalMoveError):
        G.parse_move(st, 0, "R recycling_plant>recycling_plant")  # its own cube: no
    st = do(st, 0, "R recycling_plant>recycling_plant#2", "C recycling_plant")
    assert [s.inst for s in me(st).sites] == ["recycling_plant#2"]
    assert site_of(me(st), "recycling_plant").filled[0] == 1 and me(st).draft == ()


def test_s6_auto_settles_cards_named_early():
    p = player(draft=["mega_drill", "wind_turbines"])
    st = do(state([p, player("noram_states")]), 0, "R mega_drill>wind", "auto")
    assert me(st).done and [s.inst for s in me(st).sites] == ["wind_turbines#1"]


def test_s6_cube_forced_to_empire_when_no_slot_anywhere():
    p = player(draft=["zeppelin", "wind_turbines"])
    st = do(state([p, player("noram_states")]), 0, "R zeppelin")
    assert me(st).ecubes == 1 and me(st).cubes == (0,) * 5


def test_s6_only_drafted_cards_can_be_recycled():
    p = player(draft=["wind_turbines", "zeppelin"])
    st = do(state([p, player("noram_states")]), 0, "C wind_turbines")
    with pytest.raises(IllegalMoveError) as e:
        G.parse_move(st, 0, "R wind_turbines")
    assert "discard" in e.value.reason


def test_s6_done_needs_every_card_decided_and_auto_constructs():
    p = player(draft=["wind_turbines", "zeppelin"])
    st = state([p, player("noram_states")])
    with pytest.raises(IllegalMoveError):
        G.parse_move(st, 0, "done")
    st = do(st, 0, "auto")
    assert [s.inst for s in me(st).sites] == ["wind_turbines#1", "zeppelin#1"] and me(st).done


def test_s6_unplaced_recycle_cube_is_placed_by_auto_at_done():
    p = player(draft=["mega_drill"], sites=[site("zeppelin"), site("wind_turbines", materials=1)])
    st = do(state([p, player("noram_states")]), 0, "R mega_drill", "done")
    assert built_ids(me(st)) == ["wind_turbines"]


# ---------------------------------------------------------------- §7 production


def test_s7_2_tie_means_nobody_and_no_pass_down():
    ps = [player(built=["recycling_plant"]), player("noram_states", built=["recycling_plant"]),
          player("panafrican_union")]
    st = production_state(ps, step=0)
    assert st.prod == (4, 4, 2) and st.winner == -1 and all(p.fin == 0 for p in st.players)


def test_s7_2_reward_per_step():
    rewards = []
    for step in range(5):
        p = player(built=["recycling_plant", "nuclear_plant", "research_center", "financial_center", "icebreaker"])
        st = production_state([p, player("noram_states")], step=step)
        assert st.winner == 0
        rewards.append((me(st).fin, me(st).gen, me(st).sci))
    assert rewards == [(1, 0, False), (0, 1, False), (0, 0, True), (1, 0, False), (0, 1, False)]


def test_s14_4_solo_supremacy_at_five_or_more():
    p = player(built=["recycling_plant", "mega_drill"])
    st = production_state([p], step=0)
    assert st.prod == (5,) and st.winner == 0 and me(st).fin == 1
    st = production_state([player(built=["recycling_plant"])], step=0)
    assert st.prod == (4,) and st.winner == -1


def test_s7_3_every_cube_must_be_placed_done_places_the_rest_by_auto():
    p = player(sites=[site("recycling_plant"), site("wind_turbines", materials=1)])
    st = production_state([p, player("noram_states")], step=0)
    st = do(st, 0, "done")
    assert built_ids(me(st)) == ["wind_turbines"]  # auto: the completing card first
    assert site_of(me(st), "recycling_plant").filled[0] == 1


def test_s7_1_completed_card_counts_from_the_next_step_only():
    p = player(sites=[site("wind_turbines", materials=1)], built=["recycling_plant"])
    st = production_state([p, player("noram_states")], step=1)
    assert st.prod[0] == 1
    st = production_state([p, player("noram_states")], step=0)
    p0 = st.prod[0]
    st = do(st, 0, "m>wind_turbines")
    assert st.prod[0] == p0  # P(materials) does not change mid-step


def test_s4_3_skip_seats_with_nothing_to_decide_unless_consulted():
    ps = [player(sites=[site("zeppelin")]), player("noram_states")]
    st = production_state(ps, step=1, consult=False)
    assert G.to_move(st) == {0}
    st = production_state(ps, step=1, consult=True)
    assert G.to_move(st) == {0, 1}
    st = production_state(ps, step=1, consult=(1,))  # D12 is a per-player flag
    assert G.to_move(st) == {0, 1}
    # a token or Krystallium with a legal place is a choice: not skipped
    ps = [player(sites=[site("zeppelin")]), player("noram_states", kry=1, sites=[site("lunar_base")])]
    st = production_state(ps, step=4, consult=False)
    assert 1 in G.to_move(st)


def test_s16_1_cube_without_a_legal_card_slot_goes_to_the_empire():
    p = player(sites=[site("zeppelin")])  # no materials slot
    st = production_state([p, player("noram_states")], step=0)
    assert me(st).cubes == (0,) * 5 and me(st).ecubes == 2
    # after filling the only slot, the remaining cubes are forced too
    p = player(built=["recycling_plant"], sites=[site("mega_drill")])
    st = production_state([p, player("noram_states")], step=0)
    assert me(st).cubes[0] == 4
    st = do(st, 0, "m>mega_drill")
    assert site_of(me(st), "mega_drill").filled[0] == 1 and me(st).cubes[0] == 0 and me(st).ecubes == 3


# ---------------------------------------------------------------- §8 placing


def test_s8_1_cube_cannot_go_to_another_kind_or_full_slot_or_character_slot():
    p = player(sites=[site("zeppelin"), site("giant_tower", materials=2)])
    st = production_state([p, player("noram_states")], step=0, consult=True)
    with pytest.raises(IllegalMoveError):
        G.parse_move(st, 0, "m>zeppelin")
    with pytest.raises(IllegalMoveError):
        G.parse_move(st, 0, "m>giant_tower")
    st = production_state([p, player("noram_states")], step=3, consult=True)
    with pytest.raises(IllegalMoveError):
        G.parse_move(st, 0, "F>giant_tower")


def test_s8_2_conversion_arithmetic_and_krystallium_never_on_empire():
    p = player(ecubes=4, built=["recycling_plant", "recycling_plant#2"])
    st = production_state([p, player("noram_states")], step=0)  # 6 cubes, no slot
    assert me(st).ecubes == (4 + 6) % 5 == 0 and me(st).kry == (4 + 6) // 5 == 2
    st = production_state([player(kry=3, sites=[site("zeppelin")]), player("noram_states")], step=0)
    with pytest.raises(IllegalMoveError):
        G.parse_move(st, 0, "K>E")


def test_s8_3_krystallium_slot_kind_required_unless_unique():
    p = player(kry=2, sites=[site("juggernaut"), site("research_center", materials=3)])
    st = production_state([p, player("noram_states")], step=3)
    with pytest.raises(Exception) as e:
        G.parse_move(st, 0, "K>juggernaut")
    assert e.value.code == "ambiguous"
    assert G.parse_move(st, 0, "K>research_center") == Move("kry", "", "research_center#1", 1)
    assert G.parse_move(st, 0, "K>juggernaut:k") == Move("kry", "", "juggernaut#1", 5)
    st = do(st, 0, "K>juggernaut:k")
    assert site_of(me(st), "juggernaut").filled[5] == 1
    # produced cubes never fill a Krystallium slot
    assert all(not (m.kind == "place" and m.res == 5) for m in G.legal_moves(st, 0))


def test_s8_3_krystallium_kind_on_a_drafted_card_named_before_its_c():
    # review: "K>card" on a card still in the draft area (two passes of §6)
    # silently took a materials slot; the [ruling] asks for the kind unless
    # the card has exactly one kind of empty slot Krystallium can fill
    st = state([player(kry=1, draft=["giant_tower", "time_travel"]), player("noram_states")])
    with pytest.raises(Exception) as e:
        G.parse_move(st, 0, "K>giant_tower")
    assert e.value.code == "ambiguous" and "K>giant_tower:m" in str(e.value)
    assert G.parse_move(st, 0, "K>giant_tower:g") == Move("kry", "", "giant_tower#1", 3)
    with pytest.raises(Exception) as e:
        G.parse_move(st, 0, "K>time_travel")
    assert e.value.code == "ambiguous"
    st = state([player(kry=1, draft=["secret_society", "zeppelin"]), player("noram_states")])
    with pytest.raises(Exception) as e:
        G.parse_move(st, 0, "K>secret_society")  # gold and Krystallium slots
    assert e.value.code == "ambiguous"
    st = do(st, 0, "K>secret_society:k", "C secret_society")
    assert site_of(me(st), "secret_society").filled[5] == 1 and me(st).kry == 0


def test_s8_4_tokens_fill_only_their_own_slots():
    p = player(fin=1, gen=1, sites=[site("giant_tower", materials=2, gold=2), site("center_of_the_earth")])
    st = production_state([p, player("noram_states")], step=3)
    assert G.parse_move(st, 0, "F>giant_tower").kind == "fin"
    assert G.parse_move(st, 0, "gen>center").kind == "gen"
    assert G.parse_move(st, 0, "G>center").kind == "gen"  # a capital G is the general, as in sci G
    with pytest.raises(IllegalMoveError, match="a general is a capital G"):  # a small g is a gold cube
        G.parse_move(st, 0, "g>center")
    with pytest.raises(IllegalMoveError):
        G.parse_move(st, 0, "gen>giant_tower")
    with pytest.raises(IllegalMoveError):
        G.parse_move(st, 0, "F>center")


def test_s8_5_nothing_placed_ever_moves_and_no_take_back_move_exists():
    p = player(kry=1, sites=[site("research_center", materials=2)])
    st = production_state([p, player("noram_states")], step=3)
    st = do(st, 0, "K>research_center:m")
    kinds = {m.kind for m in G.legal_moves(st, 0)}
    assert kinds <= {"auto", "done", "place", "kry", "fin", "gen", "discard", "build", "sci"}
    assert me(st).kry == 0 and site_of(me(st), "research_center").filled[0] == 3


# ---------------------------------------------------------------- §9 / §10


def test_s9_completion_bonus_tokens_usable_in_the_same_order():
    p = player(sites=[site("military_base", materials=2, energy=1), site("center_of_the_earth", exploration=5,
                                                                            general=1)])
    st = production_state([p, player("noram_states", built=["recycling_plant", "recycling_plant#2"])], step=0)
    st = do(st, 0, "m>military_base")
    assert me(st).gen == 1
    st = do(st, 0, "gen>center")
    assert built_ids(me(st)) == ["military_base", "center_of_the_earth"]


def test_s10_discard_loses_krystallium_and_tokens_too():
    p = player(sites=[site("lunar_base", krystallium=1, energy=2), site("giant_tower", financier=1)])
    st = production_state([p, player("noram_states")], step=3)
    st = do(st, 0, "discard lunar_base", "discard giant_tower")
    assert me(st).kry == 0 and me(st).fin == 0 and me(st).sites == () and me(st).ecubes == 2
    assert set(st.discard) == {"lunar_base#1", "giant_tower#1"}


def test_s10_discard_can_trigger_conversion_and_applies_to_cards_constructed_this_planning():
    p = player(ecubes=4, draft=["icebreaker"])
    st = do(state([p, player("noram_states")]), 0, "C icebreaker", "discard icebreaker")
    assert me(st).ecubes == 0 and me(st).kry == 1


# ---------------------------------------------------------------- §11, §16 build


def test_s16_2_build_shortcut_uses_cubes_then_krystallium_then_tokens():
    p = player(kry=2, fin=1, sites=[site("giant_tower", materials=1)])
    st = production_state([p, player("noram_states", built=["recycling_plant", "recycling_plant#2"])], step=3)
    # gold step: no gold produced (face B); 1 materials + 3 gold by Krystallium = 4 > 2
    with pytest.raises(IllegalMoveError) as e:
        G.parse_move(st, 0, "build giant_tower")
    assert "4 Krystallium" in e.value.reason
    p = player(kry=1, fin=1, built=["financial_center"], sites=[site("giant_tower", materials=1, gold=1)])
    st = production_state([p, player("noram_states")], step=3)
    assert me(st).cubes[3] == 2
    st = do(st, 0, "build giant_tower")
    # the financier of the gold supremacy was gained before building, the old one was spent
    assert built_ids(me(st))[-1] == "giant_tower" and me(st).kry == 0 and me(st).fin == 1
    assert me(st).cubes[3] == 0


def test_s11_anytime_actions_accepted_in_planning():
    p = player(kry=1, draft=["wind_turbines"], sites=[site("recycling_plant", materials=1)])
    st = do(state([p, player("noram_states")]), 0, "K>recycling_plant:m")
    assert built_ids(me(st)) == ["recycling_plant"]


# ---------------------------------------------------------------- §12 scoring


def test_s12_multipliers_add_up_with_face_a():
    p = player("noram_states", built=["secret_society", "casino_city"], fin=3)
    parts = score(p, "A")
    assert parts["financiers"] == 3 * (1 + 1 + 1 + 1)


def test_s12_tokens_on_unfinished_cards_do_not_score():
    p = player(fin=1, sites=[site("giant_tower", financier=1)])
    assert score(p, "B")["financiers"] == 1


def test_s12_tie_breaks_developments_then_tokens_then_shared():
    a = player(built=["recycling_plant"], fin=2)           # 0 + 2 = 2 points, 1 card, 2 tokens
    b = player("noram_states", gen=2)                       # 2 points, 0 cards
    st = replace(state([a, b]), phase=OVER)
    out = G.outcome(st)
    assert out.scores == (2, 2) and out.winners == {0} and out.ranking == (0, 1)
    a2 = player(built=["recycling_plant"], fin=1, gen=1)
    b2 = player("noram_states", built=["wind_turbines"], gen=3)
    out = G.outcome(replace(state([a2, b2]), phase=OVER))
    assert out.scores == (2, 3)
    a3 = player(built=["recycling_plant"], fin=2)
    b3 = player("noram_states", built=["wind_turbines"], gen=2)
    out = G.outcome(replace(state([a3, b3]), phase=OVER))
    assert out.winners == {0, 1} and "shared" in out.notes[0]


# ---------------------------------------------------------------- §14 solo


def _solo(**kw):
    return G.initial_state(1, 21, opts(1, **kw))


def test_s14_3_swap_rules():
    st = _solo()
    hand = me(st).draft
    m = [m for m in G.legal_moves(st, 0) if m.kind == "swap"][0]
    deck_top = st.deck[:5]
    st2 = G.apply(st, 0, m)
    assert G.reveals(st, st2)
    assert me(st2).shown == deck_top and len(st2.deck) == 105
    assert {x.kind for x in G.legal_moves(st2, 0)} == {"keep"}
    # swap discards give no bonus
    assert me(st2).ecubes == 0 and me(st2).cubes == (0,) * 5 and len(st2.discard) == 2
    keep = G.legal_moves(st2, 0)[0]
    st3 = G.apply(st2, 0, keep)
    assert len(st3.discard) == 2 + 4 and len(me(st3).draft) == len(hand) - 1
    # swaps come before any C or R of the cycle
    st4 = do(st3, 0, "C 1")
    assert not any(x.kind == "swap" for x in G.legal_moves(st4, 0))
    with pytest.raises(IllegalMoveError):
        G.parse_move(st4, 0, f"swap {me(st4).draft[0].split('#')[0]},{me(st4).draft[1].split('#')[0]}")


def test_s14_3_swap_needs_two_cards_and_five_in_the_deck():
    st = _solo()
    st = replace(st, deck=st.deck[:4])
    assert not any(m.kind == "swap" for m in G.legal_moves(st, 0))
    st = _solo()
    st = replace(st, players=(replace(me(st), draft=me(st).draft[:1]),))
    assert not any(m.kind == "swap" for m in G.legal_moves(st, 0))


def test_s14_2_two_cycles_then_production_and_stacks_in_order():
    st = _solo()
    stacks = st.stacks
    st = do(st, 0, "auto")
    assert st.step == 1 and set(me(st).draft) == set(stacks[1])
    st = do(st, 0, "auto")
    assert st.phase in (PROD, PLAN)
    while st.round == 1:
        st = do(st, 0, "auto")
    assert st.phase == PLAN and st.step == 0 and set(me(st).draft) == set(stacks[2])


def test_s15_scenario_setup_lowest_instances_before_stacks():
    st = _solo(scenario="S1")
    p = me(st)
    assert [s.inst for s in p.sites] == ["polar_base#1", "mega_drill#1", "super_sonar#1", "center_of_the_earth#1"]
    assert all(sum(s.filled) == 0 for s in p.sites)
    assert len(st.deck) == 150 - 4 - 40 == 106
    assert "mega_drill#1" not in st.deck and not any("mega_drill#1" in s for s in st.stacks)
    assert len(_solo(scenario="S4").deck) == 107


def _final(scenario, built, gen, face="B"):
    p = player("federation_of_asia", built=built, gen=gen)
    return G.outcome(replace(state([p], face=face, scenario=scenario), phase=OVER))


def test_s15_scenario_results():
    req = list(SCENARIOS["S1"][1])
    assert "lost" in _final("S1", req[:3], 200).notes[0]
    assert "gold medal" in _final("S1", req, 200).notes[0]
    base = score(player("federation_of_asia", built=req), "B")["total"]
    assert "silver medal" in _final("S1", req, 95 - base).notes[0]
    assert "bronze medal" in _final("S1", req, 70 - base).notes[0]
    assert "completed, no medal" in _final("S1", req, 69 - base).notes[0]
    # any copy counts: a second copy of mega_drill
    alt = ["polar_base", "mega_drill#3", "super_sonar", "center_of_the_earth"]
    assert "lost" not in _final("S1", alt, 0).notes[0]
    # face A house option: 15 subtracted
    base_a = score(player("federation_of_asia", built=req), "A")["total"]
    assert "silver medal" in _final("S1", req, 115 + 14 - base_a, face="A").notes[0]


# ---------------------------------------------------------------- §17 defaults


def test_s17_auto_placement_preferences():
    p = player(sites=[site("recycling_plant"), site("financial_center", materials=3, energy=1),
                      site("wind_turbines"), site("nuclear_plant", materials=3)])
    assert auto_target(p, 0) == "financial_center#1"  # would complete it (nuclear_plant has its science left)
    p = player(sites=[site("financial_center"), site("recycling_plant"), site("wind_turbines")])
    assert auto_target(p, 0) == "recycling_plant#1"  # fewest empty slots, earliest first
    assert auto_target(p, 4) == "E"


def test_s17_d5_science_default():
    p = player(sites=[site("center_of_the_earth")])
    assert sci_default(p, "B") == "general"
    p = player("noram_states")
    assert sci_default(p, "A") == "financier"
    p = player("republic_of_europe")
    assert sci_default(p, "A") == "general"
    assert sci_default(player(), "B") == "financier"
    st = production_state([player(built=["research_center", "research_center#2"], sites=[site("giant_tower")]),
                           player("noram_states")], step=2)
    st = do(st, 0, "done")
    assert me(st).fin == 1


def test_phases_reveal_and_undo_windows():
    p = player(draft=["wind_turbines"])
    st = state([p, player("noram_states", draft=["zeppelin"])])
    st2 = do(st, 0, "auto")
    assert not G.reveals(st, st2)
    st3 = do(st2, 1, "auto")
    assert G.reveals(st2, st3)


# ---------------------------------------------------------------- legal_moves == moves apply accepts


def _candidates(st, seat):
    from pbem.engine.iaww.data import CARD_OF as CO
    p = st.players[seat]
    cards = sorted({i.split("#")[0] for i in p.hand + p.draft + p.shown} | {"zeppelin", "wind_turbines"})
    targets = ["E", "zeppelin#1", "lunar_base#1"] + [s.inst for s in p.sites] + list(p.draft[:2])
    out = [Move("done"), Move("auto"), Move("sci", "financier"), Move("sci", "general")]
    for c in cards:
        out += [Move("pick", c), Move("c", c), Move("keep", c), Move("r", c)]
        out += [Move("r", c, t) for t in targets]
        out += [Move("swap", c, d) for d in cards]
    for t in targets:
        out += [Move(k, "", t) for k in ("fin", "gen", "discard", "build")]
        out += [Move("place", "", t, r) for r in range(5)]
        out += [Move("kry", "", t, r) for r in range(8)]
    assert all(m.target in CO or m.target in ("", "E") or m.kind == "swap" for m in out)
    return out


@pytest.mark.parametrize("players", [1, 2, 4])
def test_legal_moves_are_exactly_the_moves_apply_accepts(players):
    from pbem.engine.iaww.rules import check
    from pbem.engine.playout import random_playout
    seen = 0

    def on_move(before, seat, move, after):
        nonlocal seen
        seen += 1
        if seen % 7:
            return
        for s in G.to_move(before):
            legal = set(G.legal_moves(before, s))
            for m in _candidates(before, s):
                assert (check(before, s, m) is None) == (m in legal), (m, check(before, s, m))

    random_playout(G, players, 3, validate_options(G, players, {}), rng_seed=3, on_move=on_move)
    assert seen > 20


@pytest.mark.parametrize("players", [1, 3])
def test_legal_moves_are_well_formed_and_an_equal_move_of_other_types_is_still_checked(players):
    # apply takes a move equal to a listed one, with fields of the same types, without the field
    # checks of a hand-made move: every listed move must pass them
    from pbem.engine.iaww.game import _malformed
    from pbem.engine.playout import random_playout
    seen = 0

    def on_move(before, seat, move, after):
        nonlocal seen
        for m in G.legal_moves(before, seat):
            seen += 1
            assert _malformed(m) is None, m
            if m.kind == "place":
                odd = Move(m.kind, m.card, m.target, float(m.res))
                assert odd == m
                with pytest.raises(IllegalMoveError, match="a cube is one of the five resources"):
                    G.apply(before, seat, odd)

    random_playout(G, players, 2, validate_options(G, players, {}), rng_seed=5, on_move=on_move)
    assert seen > 500


def test_s10_confirmation_states_what_was_lost():
    p = player(sites=[site("lunar_base", krystallium=1, energy=2, wild=0)])
    st = production_state([p, player("noram_states")], step=3)
    st = do(st, 0, "discard lunar_base")
    v = G.view(st, 0)
    assert v["you"]["notes"][-1] == ("R1 gold: Discarded Lunar Base: lost 2 energy 1 Krystallium; 1 exploration cube"
                                     " onto your empire card.")
    assert "notes" not in str(G.view(st, 1)["you"]) or G.view(st, 1)["you"]["notes"] == []
    assert "Discarded" in G.render_text(v)


def test_s17_timeout_defaults():
    st = G.initial_state(3, 4, opts(3))
    m = G.timeout_move(st, 0)
    assert m.kind == "pick" and m == G.timeout_move(st, 0)
    p = player(draft=["zeppelin"])
    assert G.timeout_move(state([p, player()]), 0) == Move("auto")


def test_s3_2_dealing_convention_blocks_in_seat_order():
    from pbem.engine import rng_for
    deck = list(INSTANCES)
    rng_for(9, "deck").shuffle(deck)
    st = G.initial_state(4, 9, opts(4))
    for seat in range(4):
        assert set(st.players[seat].hand) == set(deck[7 * seat:7 * seat + 7])
    assert st.deck == tuple(deck[28:])
    empires = ["aztec_empire", "federation_of_asia", "noram_states", "panafrican_union", "republic_of_europe"]
    rng_for(9, "empires").shuffle(empires)
    assert [p.empire for p in st.players] == empires[:4]


def test_s14_3_no_card_stays_in_the_solo_hand():
    st = _solo()
    with pytest.raises(IllegalMoveError):
        G.parse_move(st, 0, "done")
    for n in range(1, len(me(st).draft) + 1):  # the numbers shown on the board stay put
        st = do(st, 0, f"C {n}")
    st = do(st, 0, "done")
    assert st.step == 1


def test_w13_round_r_uses_stacks_2r_minus_1_and_2r():
    st = _solo()
    seen = []
    while st.phase != OVER:
        if st.phase == PLAN and (st.round, st.step) not in [s[:2] for s in seen]:
            seen.append((st.round, st.step, set(me(st).draft) == set(st.stacks[2 * (st.round - 1) + st.step])))
        st = do(st, 0, "auto")
    assert seen == [(r, c, True) for r in (1, 2, 3, 4) for c in (0, 1)]


@pytest.mark.parametrize("players,options", [(1, {}), (1, {"scenario": "S5"}), (2, {}), (3, {"face": "B"}),
                                             (5, {"consult": "all"})])
def test_invariants_over_random_games(players, options):
    """Every card is somewhere exactly once; counters stay in range."""
    from pbem.engine.playout import random_playout

    def on_move(before, seat, move, after):
        from pbem.engine.iaww.data import CARD_OF
        cards = list(after.deck) + list(after.discard)
        for p in after.players:
            cards += list(p.hand) + list(p.draft) + list(p.shown) + [s.inst for s in p.sites] + list(p.built)
            cards += [p.pick] if p.pick else []
            assert 0 <= p.ecubes <= 4 and min(p.cubes) >= 0 and min(p.kry, p.fin, p.gen) >= 0
            for s in p.sites:
                cost = CARD_OF[s.inst].cost
                assert all(0 <= f <= c for f, c in zip(s.filled, cost)) and s.filled != cost
        assert len(cards) == len(set(cards)), "a card is in two places"
        if players == 1:  # the stacks not taken yet hold the rest
            taken = 2 * (after.round - 1) + after.step + 1 if after.phase == PLAN else 2 * after.round
            cards += [c for st_ in after.stacks[taken:] for c in st_]
        assert len(cards) == len(set(cards)) == 150
        if after.phase == PROD and seat in G.to_move(after):
            assert sum(after.players[seat].cubes) == sum(after.players[seat].cubes[after.step:after.step + 1])

    for seed in (5, 6):
        random_playout(G, players, seed, validate_options(G, players, options), rng_seed=seed, on_move=on_move)
