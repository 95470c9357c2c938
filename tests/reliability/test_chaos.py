"""The short chaos run for every test run: ~80 mails over real
SMTP across four games, two real workers on Redis + PostgreSQL, a real
relay; workers killed with SIGKILL mid-processing and the relay stopped.
Restarting Redis and PostgreSQL disturbs everything else on the machine, so
it is switched on with PBEM_CHAOS_SERVICES=1 (CI on its own machine, and
``scripts/chaos`` by default)."""
import os

import pytest

from tests.reliability.chaos import run_chaos

pytestmark = [pytest.mark.chaos, pytest.mark.redis, pytest.mark.postgres]


def test_nothing_lost_nothing_doubled_under_faults():
    services = os.environ.get("PBEM_CHAOS_SERVICES") == "1"
    report = run_chaos(mails=int(os.environ.get("PBEM_CHAOS_MAILS", "80")), games=4, seed=7,
                       services=services, fault_every=1.5, log=lambda *_: None)
    print(report.text())
    assert report.faults["kill-worker"] >= 1 and report.faults["relay-outage"] >= 1, report.text()
    if services:
        assert report.faults["restart-redis"] >= 1 and report.faults["restart-postgres"] >= 1, report.text()
    assert (report.lost, report.duplicated, report.wrong) == (0, 0, 0), report.text()
    assert report.ok, report.text()


def test_attack_mails_mixed_into_play_are_bounded_and_change_nothing_else():
    """The chaos run with attacks, short: attack mails (the hostile corpus and generated ones) are
    60 % of the mails into two games over the real receiver and a worker, without
    faults: nothing lost or doubled (the move logs equal the driver's replay), every
    mail ends done, ignored or failed with its reason, none is left waiting, and no
    mail makes more mails than a move does. `scripts/chaos --attacks 0.3` mixes them
    into the full run with faults."""
    report = run_chaos(mails=40, games=2, seed=11, services=False, workers=1, log=lambda *_: None,
                       attacks=0.6, faults=False)
    print(report.text())
    assert sum(report.attacks.values()) >= 12, report.text()
    assert (report.lost, report.duplicated, report.wrong, report.stuck_mails, report.without_reason) == (0,) * 5
    assert report.mails_out_max <= report.amplification_cap and report.outbound_rows == report.outbound_accounted
    assert report.ok, report.text()
