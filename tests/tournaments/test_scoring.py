"""A tournament's points and standings (pbem/services/lobby/tournaments/scoring.py): points by
place or by score, shared places, forfeits and byes, tie-breaks; always computed from results."""
import pytest

from pbem.services.lobby.tournaments import scoring
from pbem.services.lobby.tournaments.scoring import ScoringError, TableResult


def test_points_by_place_and_shared_places_share_the_points():
    r = TableResult(("a", "b", "c", "d"), (1, 1, 3, 4), (50, 50, 30, 10))
    assert [(a.player, a.points, a.place) for a in scoring.award(r)] == \
        [("a", 3.0, 1), ("b", 3.0, 1), ("c", 1.0, 3), ("d", 0.0, 4)]
    custom = {4: scoring.parse_points("10-6-3-0")}
    assert [a.points for a in scoring.award(r, custom=custom)] == [8.0, 8.0, 3.0, 0.0]


def test_score_scoring_is_a_share_of_the_tables_best():
    r = TableResult(("a", "b", "c"), (1, 2, 3), (40, 30, 0))
    assert [a.points for a in scoring.award(r, "score")] == [100.0, 75.0, 0.0]


def test_a_forfeit_scores_nothing_and_the_others_are_placed_among_themselves():
    # the leaver's bot won the game: its points go to nobody, the first person is placed first
    r = TableResult(("a", "b", "c"), (1, 2, 3), (60, 40, 20), frozenset({"a"}))
    got = {a.player: (a.points, a.place, a.forfeit) for a in scoring.award(r)}
    assert got == {"a": (0.0, None, True), "b": (3.0, 1, False), "c": (1.0, 2, False)}


def test_standings_order_by_points_then_tie_breaks_and_share_places_when_all_equal():
    results = [
        TableResult((1, 2, 3), (1, 2, 3), (30, 20, 10)),
        TableResult((4, 5, 6), (1, 2, 3), (40, 20, 10)),
        TableResult((1, 5, 6), (2, 1, 3), (10, 30, 0)),
        TableResult((4, 2, 3), (2, 1, 3), (10, 30, 0)),
    ]
    rows = scoring.standings(range(1, 7), results)
    got = [(r.player, r.points, r.wins, r.place) for r in rows]
    # 1, 2, 4, 5 all have 4 points and one win; opponents' points part them
    assert [r.points for r in rows] == [4.0, 4.0, 4.0, 4.0, 0.0, 0.0]
    assert [r.opponents for r in rows[:4]] == sorted((r.opponents for r in rows[:4]), reverse=True)
    assert rows[-1].place == rows[-2].place or rows[-1].key(scoring.DEFAULT_TIE_BREAKS) != rows[-2].key(scoring.DEFAULT_TIE_BREAKS)
    assert got[0][3] == 1


def test_byes_score_the_mean_of_a_full_table_rounded_down_to_a_half():
    assert scoring.bye_points(3) == 1.0 and scoring.bye_points(4) == 1.5 and scoring.bye_points(3, "score") == 50.0
    rows = scoring.standings([1, 2, 3, 4], [TableResult((1, 2, 3), (1, 2, 3), (3, 2, 1))], [(1, 4)])
    assert {r.player: r.points for r in rows} == {1: 3.0, 2: 1.0, 4: 1.0, 3: 0.0}


def test_standings_are_recomputed_the_same_in_any_order():
    results = [TableResult((1, 2, 3), (1, 2, 3), (3, 2, 1)), TableResult((3, 1, 2), (1, 3, 2), (9, 1, 5))]
    a = scoring.standings([1, 2, 3], results)
    b = scoring.standings([3, 2, 1], list(reversed(results)))
    assert [(r.player, r.points, r.place) for r in a] == [(r.player, r.points, r.place) for r in b]


def test_places_from_an_engines_outcome_keep_its_tie_breaks_and_winners():
    assert scoring.places_from_outcome((10, 10, 5)) == (1, 1, 3)
    # the engine's ranking parted the tie (e.g. Spyrium's money): places follow it
    assert scoring.places_from_outcome((10, 10, 5), ranking=(1, 0, 2), winners=(1,)) == (2, 1, 3)


@pytest.mark.parametrize("text", ["4-x-1", "1-2-3", "5", "3--1", "-1-0"])
def test_bad_points_are_refused_with_an_example(text):
    with pytest.raises(ScoringError, match="e.g. 4-2-1-0"):
        scoring.parse_points(text)


def test_tie_breaks_parse_and_refuse_unknown_ones():
    assert scoring.parse_tie_breaks("wins, opponents") == ("wins", "opponents")
    with pytest.raises(ScoringError, match="e.g. wins,opponents"):
        scoring.parse_tie_breaks("wins,luck")
    assert scoring.format_points((4.0, 2.0, 1.0, 0.0)) == "4-2-1-0"
