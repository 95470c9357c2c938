"""Every bench command runs end to end on a tiny size and writes its report.
No timing is asserted here (benchmarks are commands, never timed tests): only
that the real components were driven and every mail was answered."""
import shutil

import pytest
from click.testing import CliRunner

from pbem.cli import main
from tests.conftest import PG_ADMIN, READING_PICTURE_WIDTH, REDIS_BASE


@pytest.fixture
def reading_pictures(monkeypatch):
    """The benches' workers render the mails' pictures at the width the mail shows them (the bench takes
    PBEM_PICTURE_WIDTH from its caller): these tests check that every mail is answered and the report
    written, not what a picture costs, and the pictures were most of their CPU."""
    monkeypatch.setenv("PBEM_PICTURE_WIDTH", str(READING_PICTURE_WIDTH))


@pytest.mark.redis
@pytest.mark.postgres
def test_bench_all_quick_writes_the_report(tmp_path, reading_pictures):
    if shutil.which("wrk") is None:
        pytest.skip("wrk is not installed (apt-get install wrk; scripts/test installs it)")
    out = tmp_path / "PERFORMANCE.md"
    res = CliRunner().invoke(main, ["bench", "all", "--quick", "--out", str(out), "--pg", PG_ADMIN,
                                    "--redis", f"{REDIS_BASE}/0"], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    text = out.read_text()
    for section in ("## 1. Engines", "## 2. Replay", "## 3. The mail pipeline", "## 4. The web site",
                    "## 5. Scaling out"):
        assert section in text
    for game in ("spyrium", "squire", "iaww"):
        assert f"| {game}" in text
    pipeline = text.split("## 3. The mail pipeline")[1].split("## 4.")[0]
    figures, cpu = pipeline.split("Where the CPU goes")
    rows = [r for r in figures.splitlines() if r.startswith("| many games") or r.startswith("| one game")]
    # max, paced at half of it, paced at the target's half load (5/s in --quick; one row if they coincide), one game
    assert len(rows) in (3, 4) and any("| 5/s " in r for r in rows), rows
    for r in rows:  # mails == answered == moves applied: every mail was processed and every move taken
        cells = [c.strip() for c in r.strip("|").split("|")]
        assert cells[3] == cells[5] == cells[6], r
    assert "2 (solo)" in pipeline
    cpu_rows = [r for r in cpu.splitlines() if r.startswith("| many games") or r.startswith("| one game")]
    assert len(cpu_rows) == len(rows) and "| workers ms |" in cpu  # CPU per mail, by component, for each run
    header = [c.strip() for c in next(r for r in cpu.splitlines() if "| workers ms |" in r).strip("|").split("|")]
    assert {"receiver ms", "pbem ms", "load generator ms", "total ms"} <= set(header), header
    for r in cpu_rows:  # the load generator's threads are taken out of the receiver's process, not below zero
        cells = dict(zip(header, (c.strip() for c in r.strip("|").split("|"))))
        assert float(cells["receiver ms"]) > 0 and float(cells["load generator ms"]) > 0, r
        assert abs(float(cells["pbem ms"]) + float(cells["load generator ms"]) - float(cells["total ms"])) < 0.05, r


def test_bench_engine_command_runs():
    res = CliRunner().invoke(main, ["bench", "engine", "squire", "-p", "2", "-n", "1"], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    assert "| squire" in res.output


@pytest.mark.postgres
def test_bench_worker_command_processes_every_mail_and_fails_over_budget(tmp_path):
    """run_worker raises unless every measured mail ends 'done'; a case over its baseline's figures
    (here a baseline no code can meet) makes the command exit 1, after the report."""
    import json

    strict = tmp_path / "baseline.json"
    strict.write_text(json.dumps({"yardstick_s": None, "targets": [
        {"game": "spyrium", "players": 2, "pictures": False, "statements": 1}],
        "cases": {"spyrium 2p pictures off": {"cpu_ms": 0.01, "statements": 1}}}))
    written = tmp_path / "new.json"
    res = CliRunner().invoke(main, ["bench", "worker", "-n", "5", "--games", "2", "--warm", "2", "--game", "spyrium",
                                    "-p", "2", "--pictures", "off", "--baseline", str(strict),
                                    "--write-baseline", str(written), "--pg", PG_ADMIN,
                                    "--redis", f"{REDIS_BASE}/0"], catch_exceptions=False)
    assert res.exit_code == 1, res.output
    lines = res.output.splitlines()
    header = next(x for x in lines if x.startswith("| game"))
    row = dict(zip((c.strip() for c in header.strip("|").split("|")),
                   (c.strip() for c in next(x for x in lines if x.startswith("| spyrium")).strip("|").split("|"))))
    assert row["mails"] == "5" and row["pictures"] == "off" and float(row["statements/mail"]) > 1, row
    assert "OVER spyrium 2p pictures off: statements/mail vs target" in res.output
    case = json.loads(written.read_text())["cases"]["spyrium 2p pictures off"]
    assert case["statements"] == float(row["statements/mail"])


@pytest.mark.postgres
def test_bench_hostile_command_reads_every_input_it_is_given():
    """run_hostile raises unless every mail ends done or ignored; each input makes a mail SMTP
    carries (make_mail raises otherwise) and gets a verdict."""
    from pbem.bench.hostile import INPUTS, make_mail

    for name in INPUTS:  # the largest size too: within the limit, no line over 998 octets
        assert len(make_mail(name, 2048 * 1024, "game-1.x@pbem.bench", "a@b.c", 1)) <= 2048 * 1024
    res = CliRunner().invoke(main, ["bench", "hostile", "--size", "1", "--size", "64", "--reps", "1",
                                    "--input", "blank lines", "--input", "parts nested to the end",
                                    "--pg", PG_ADMIN, "--redis", f"{REDIS_BASE}/0"], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    rows = [r for r in res.output.splitlines() if r.startswith(("| blank lines", "| parts nested"))]
    assert [r.split("|")[4].strip() for r in rows] == ["done", "done", "done", "ignored"], rows
    assert "blank lines: linear" in res.output or "blank lines: SUPER-LINEAR" in res.output


def _table_row(output: str, first_cell: str) -> dict[str, str]:
    """The row of a printed table that starts with ``first_cell``, by column name."""
    lines = output.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith(f"| {first_cell}"))
    header = next(line for line in reversed(lines[:at]) if line.startswith("| scenario"))
    return dict(zip((c.strip() for c in header.strip("|").split("|")),
                    (c.strip() for c in lines[at].strip("|").split("|"))))


@pytest.mark.redis
@pytest.mark.postgres
def test_bench_pipeline_relay_delivers_every_mail_to_the_relay_over_few_connections(reading_pictures):
    """--relay: the workers deliver over SMTP to the sink (aiosmtpd, a process of its own), and the
    run ends only when the sink has every mail the outbox marked sent (run_pipeline raises otherwise).
    One worker keeps one connection for all its mails; with --relay-max-mails 1, one per mail."""
    args = ["bench", "pipeline", "-n", "8", "--games", "8", "--pg", PG_ADMIN, "--redis", f"{REDIS_BASE}/0", "--relay"]
    res = CliRunner().invoke(main, args, catch_exceptions=False)
    assert res.exit_code == 0, res.output
    row = _table_row(res.output, "many games")
    assert row["mails"] == row["answered"] == row["moves applied"] == "8", row
    assert row["delivery"] == "relay, 100/conn"
    assert int(row["relay mails"]) == int(row["mails delivered"]) >= 16  # every reply and every other seat's board
    assert row["relay conns used"] == "1" and int(row["relay conns opened"]) <= 1, row  # kept since the warm-up
    assert float(_table_row(res.output.split("CPU per mail")[1], "many games")["relay sink ms"]) > 0

    res = CliRunner().invoke(main, [*args, "--relay-max-mails", "1"], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    row = _table_row(res.output, "many games")
    assert row["delivery"] == "relay, 1/conn"
    assert int(row["relay mails"]) == int(row["mails delivered"]) >= 16
    assert row["relay conns used"] == row["relay conns opened"] == row["relay mails"], row


def test_bench_pipeline_relay_max_mails_needs_relay():
    res = CliRunner().invoke(main, ["bench", "pipeline", "--relay-max-mails", "1"])
    assert res.exit_code == 2 and "--relay-max-mails is for --relay" in res.output


def test_bench_pictures_per_move_renders_every_seats_picture_the_same_before_and_after():
    from pbem.bench.pictures import run_moves

    row = run_moves("iaww", 2, 1, 170)  # a narrow PNG: the figures, not the machine, are what is checked
    assert row["players"] == 2 and row["moves"] == 1 and row["same PNG"] == "2/2", row
    assert row["drawings/move (distinct)"] == 2, "each seat sees its own hand"


def test_bench_pictures_of_a_games_moves_renders_them_whole_and_band_by_band():
    from pbem.bench.pictures import run_game

    row = run_game("spyrium", 2, 2, 170)  # a narrow PNG: the figures, not the machine, are what is checked
    assert row["players"] == 2 and row["moves"] == 2 and row["mails/move"] == 3, row
    assert row["whole ms/move"] > 0 and min(row["bands cold ms/move"], row["bands warm ms/move"]) >= 0, row
