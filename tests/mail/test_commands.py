"""Splitting a mail into commands and moves."""
from pbem.mail.commands import split_lines


def kinds(text, on_seat=False):
    return [(ln.command, ln.args, ln.moves) for ln in split_lines(text, on_seat=on_seat)]


def test_commands_moves_and_semicolons():
    assert kinds("register Ann K.\n\n  pick zeppelin; C icebreaker  \nHELP spyrium") == [
        ("REGISTER", ["Ann", "K."], []), (None, [], ["pick zeppelin", "C icebreaker"]), ("HELP", ["spyrium"], [])]


def test_a_line_of_separators_alone_is_skipped_like_an_empty_one():
    """Found by the fuzz test: ";" made a line with no command and no move,
    which the pipeline neither applied nor answered."""
    assert kinds(";\n ; ;; \nwait", on_seat=True) == [(None, [], ["wait"])]
    assert kinds(";;", on_seat=True) == []


def test_game_words_that_look_like_commands_are_moves_on_a_seat_address():
    # Spyrium answers "new" (a new lot); Squire starts with "start york"
    assert kinds("new\nstart york\nNew lot", on_seat=True) == [
        (None, [], ["new"]), (None, [], ["start york"]), (None, [], ["New lot"])]
    # written as the commands, they stay commands, on any address
    assert kinds("START 12\nNEW spyrium players=2", on_seat=True) == [
        ("START", ["12"], []), ("NEW", ["spyrium", "players=2"], [])]
    assert kinds("new\nstart york") == [("NEW", [], []), ("START", ["york"], [])]
