"""Every worked example of RULES.md §18 (W1-W13), with exact numbers."""

import pytest

from pbem.engine import IllegalMoveError
from pbem.engine.iaww.rules import DRAFT, OVER, PLAN, PROD, production, productions, replace, score

from .helpers import G, built_ids, do, me, player, production_state, site, site_of, state


def _auto_until(st, phase, round_=None):
    """Everyone sends auto (or picks their first card) until ``phase`` of ``round_``."""
    while not (st.phase == phase and (round_ is None or st.round == round_)):
        seat = min(G.to_move(st))
        moves = G.legal_moves(st, seat)
        st = G.apply(st, seat, moves[0] if st.phase == DRAFT else [m for m in moves if m.kind == "auto"][0])
    return st


def test_w1_draft_flow_four_players():
    st = G.initial_state(4, 11, {})
    assert [len(p.hand) for p in st.players] == [7, 7, 7, 7]
    assert len(st.deck) == 150 - 28 == 122
    sizes = []
    while st.phase == DRAFT:
        sizes.append(len(st.players[0].hand))
        before = [p.hand for p in st.players]
        picks = {}
        for seat in range(4):
            m = G.legal_moves(st, seat)[0]
            picks[seat] = m.card
            st = G.apply(st, seat, m)
        if st.phase == DRAFT:
            # passed to the left: P1 -> P2, ..., P4 -> P1
            for seat in range(4):
                left = list(before[seat])
                left.remove([i for i in left if i.split("#")[0] == picks[seat]][0])
                assert st.players[(seat + 1) % 4].hand == tuple(left)
    assert sizes == [7, 6, 5, 4, 3, 2]  # the 7th pick (1 card) is automatic
    assert st.phase == PLAN and all(len(p.draft) == 7 for p in st.players)
    st = _auto_until(st, DRAFT, 2)
    before = [p.hand for p in st.players]
    for seat in range(4):
        st = G.apply(st, seat, G.legal_moves(st, seat)[0])
    # round 2 passes to the right: P1 -> P4
    assert set(st.players[3].hand) < set(before[0])
    st = _auto_until(st, DRAFT, 4)
    assert len(st.deck) == 150 - 112 == 38


@pytest.mark.parametrize("round_,shift", [(1, 1), (2, -1), (3, 1), (4, -1)])
def test_w1_pass_direction_every_round(round_, shift):
    # review: rounds 1 and 3 pass left (seat i -> i+1), rounds 2 and 4 right (i -> i-1), 3 players
    st = _auto_until(G.initial_state(3, 8, {}), DRAFT, round_)
    before = [p.hand for p in st.players]
    picks = []
    for seat in range(3):
        m = G.legal_moves(st, seat)[0]
        picks.append([i for i in before[seat] if i.split("#")[0] == m.card][0])
        st = G.apply(st, seat, m)
    for seat in range(3):
        assert st.players[(seat + shift) % 3].hand == tuple(i for i in before[seat] if i != picks[seat])


def test_w2_planning_with_recycling_that_completes_a_card():
    p = player(draft=["wind_turbines", "recycling_plant", "icebreaker", "financial_center", "tank_division",
                      "mega_drill", "zeppelin"])
    st = state([p, player("noram_states")])
    st = do(st, 0, "C wind_turbines", "C recycling_plant", "C icebreaker", "C financial_center",
            "R tank_division>wind_turbines", "R mega_drill>wind_turbines", "R zeppelin>E")
    p = me(st)
    assert built_ids(p) == ["wind_turbines"]
    assert p.ecubes == 1
    assert [s.inst.split("#")[0] for s in p.sites] == ["recycling_plant", "icebreaker", "financial_center"]
    assert all(sum(s.filled) == 0 for s in p.sites)
    assert productions(p, "B") == (2, 2, 1, 0, 0)
    st = do(st, 0, "done")
    assert st.phase == PLAN  # the other player has not finished
    st = do(st, 1, "auto")
    assert st.phase == PROD and st.step == 0 and st.prod[0] == 2


def test_w3_ledas_materials():
    p = player(built=["recycling_plant", "mega_drill"])
    assert production(p, "B", 0) == 5


def test_w4_per_type_production_and_super_sonar():
    p = player(built=["super_sonar", "zeppelin", "tank_division", "submarine"])
    assert production(p, "B", 4) == 3 + 4 == 7
    assert production(player(built=["super_sonar"]), "B", 4) == 0


def test_w5_supremacy_two_players():
    p1 = player(built=["recycling_plant", "mega_drill", "financial_center"])
    p2 = player("noram_states", built=["mega_drill", "financial_center", "research_center"])
    st = production_state([p1, p2], step=0)
    assert st.prod == (5, 3) and st.winner == 0
    assert me(st, 0).fin == 1 and me(st, 1).fin == 0
    st = production_state([p1, p2], step=3)
    assert st.prod == (2, 2) and st.winner == -1
    assert (me(st, 0).fin, me(st, 1).fin) == (0, 0)
    st = production_state([p1, p2], step=2)
    assert st.prod == (1, 3) and st.winner == 1 and me(st, 1).sci
    st2 = do(st, 1, "sci G")
    assert me(st2, 1).gen == 1 and me(st2, 1).fin == 0
    st3 = do(st, 1, "sci financier")
    assert me(st3, 1).fin == 1 and me(st3, 1).gen == 0


def test_w6_sashos_wind_turbines():
    sasho = player(sites=[site("wind_turbines")])
    st = production_state([sasho, player("noram_states")], step=0, consult=False)
    assert st.prod == (2, 2)
    st = do(st, 0, "m>wind_turbines")
    assert built_ids(me(st)) == []
    st = do(st, 0, "m>wind_turbines")
    assert built_ids(me(st)) == ["wind_turbines"]
    assert G.to_move(st) == {0}  # the other player had nothing to decide (§4.3)
    st = do(st, 0, "done")
    # nobody has anything to decide later in the round, so the steps ran on; the log keeps the totals
    assert "Energy step: production Player 1 2, Player 2 1; supremacy to Player 1 (general)." in st.log
    # 1 (face) + 1 (wind_turbines); it would have been 1 without the card


def test_w7_construction_bonus():
    p = player(built=["zeppelin"], sites=[site("ark_of_the_covenant", exploration=3),
                                          site("research_center", materials=3)])
    st = production_state([p, player("noram_states")], step=4)
    assert st.prod == (1, 0)
    st = do(st, 0, "x>ark")
    assert built_ids(me(st)) == ["zeppelin", "ark_of_the_covenant"]
    assert me(st).kry == 1
    st = do(st, 0, "K>research_center:e")  # the Krystallium is used in the same step
    assert built_ids(me(st))[-1] == "research_center" and me(st).kry == 0


def test_w8_empire_conversion():
    p = player(draft=["zeppelin"])
    st = do(state([p, player("noram_states", draft=["zeppelin"])]), 0, "R zeppelin>E")
    assert me(st).ecubes == 1
    st = production_state([me(st), player("noram_states")], step=0, consult=True)
    assert me(st).ecubes == 3  # 2 materials, forced onto the empire card
    st = do(do(st, 0, "done"), 1, "done")
    assert st.step == 1 and me(st).ecubes == 4
    st = do(do(st, 0, "done"), 1, "done")
    assert st.step == 2 and me(st).ecubes == 0 and me(st).kry == 1


def test_w9_krystallium_as_wildcard():
    p = player(kry=1, sites=[site("research_center", materials=3),
                             site("giant_tower", materials=2, gold=3)])
    st = production_state([p, player("noram_states")], step=3, consult=True)
    ok = do(st, 0, "K>research_center:e")
    assert built_ids(me(ok)) == ["research_center"]
    with pytest.raises(IllegalMoveError) as e:
        G.parse_move(st, 0, "K>giant_tower:f")
    assert "character token" in e.value.reason
    with pytest.raises(IllegalMoveError):
        G.parse_move(st, 0, "K>giant_tower")


def test_w10_discarding_a_card_under_construction():
    p = player(sites=[site("icebreaker", energy=2), site("zeppelin")])
    st = production_state([p, player("noram_states")], step=3, consult=True)
    st = do(st, 0, "discard icebreaker")
    assert [s.inst for s in me(st).sites] == ["zeppelin#1"]
    assert me(st).ecubes == 1 and "icebreaker#1" in st.discard
    assert site_of(me(st), "zeppelin").filled == (0,) * 8  # the bonus cube never goes onto another card


def test_w11_sashos_final_score_of_62():
    p = player(built=["giant_tower", "climate_control", "universal_vaccine", "world_congress",
                      "national_monument", "secret_society", "space_elevator"],
               fin=6, gen=2, kry=2, sites=[site("lunar_base")])
    parts = score(p, "B")
    assert parts == {"fixed": 12, "type": 30, "generals": 2, "financiers": 18, "total": 62}
    st = replace(state([p, player("noram_states")]), phase=OVER)
    out = G.outcome(st)
    assert out.scores[0] == 62
    assert out.breakdown[0]["developments"] == 7 and out.breakdown[0]["tokens"] == 8


def test_w12_two_player_draft():
    st = G.initial_state(2, 5, {})
    sizes = []
    while st.phase == DRAFT:
        sizes.append(len(st.players[0].hand))
        for seat in (0, 1):
            st = G.apply(st, seat, G.legal_moves(st, seat)[-1])
    assert sizes == [10, 9, 8, 7, 6, 5, 4]
    assert all(len(p.draft) == 7 and p.hand == () for p in st.players)
    assert len(st.discard) == 6 and all(p.ecubes == 0 and not any(p.cubes) for p in st.players)
    assert len(st.deck) == 130


def test_w13_solo_structure_and_result():
    st = G.initial_state(1, 3, {})
    assert st.face == "B"
    assert len(st.stacks) == 8 and all(len(s) == 5 for s in st.stacks) and len(st.deck) == 110
    assert set(me(st).draft) == set(st.stacks[0])
    assert len(me(st).draft) == 5
    m = [m for m in G.legal_moves(st, 0) if m.kind == "swap"][0]
    st = G.apply(st, 0, m)
    st = G.apply(st, 0, G.legal_moves(st, 0)[0])  # keep
    assert len(me(st).draft) == 4
    m = [m for m in G.legal_moves(st, 0) if m.kind == "swap"][0]
    st = G.apply(st, 0, m)
    st = G.apply(st, 0, G.legal_moves(st, 0)[0])
    assert len(me(st).draft) == 3
    st = do(st, 0, "auto")
    assert st.phase == PLAN and st.step == 1 and set(me(st).draft) == set(st.stacks[1])


@pytest.mark.parametrize("face,raw,title", [("A", 94, "Dictator"), ("A", 95, "Emperor"), ("B", 59, "Recruit"),
                                            ("B", 60, "Dictator"), ("B", 100, "Living Legend")])
def test_w13_solo_titles(face, raw, title):
    p = player("federation_of_asia", gen=raw)  # face A: 2 per project, no projects
    st = replace(state([p], face=face), phase=OVER)
    out = G.outcome(st)
    assert out.scores == (raw,)
    adj = raw - 15 if face == "A" else raw
    assert f"Solo title: {title}" in out.notes[0] and str(adj) in out.notes[0]
