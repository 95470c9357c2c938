"""The deployment files stay true to the code: every setting is
documented, every unit runs a pbem command that exists."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SETTINGS = sorted(set(re.findall(r"PBEM_[A-Z_]+", (ROOT / "pbem/config.py").read_text())))


@pytest.mark.parametrize("doc", ["deploy/pbem.env", "docs/operators.md"])
def test_every_setting_is_documented(doc):
    text = (ROOT / doc).read_text()
    missing = [name for name in SETTINGS if not re.search(rf"\b{name}\b", text)]
    assert not missing, f"{doc} does not mention {missing}"


def test_the_env_file_loads_as_settings():
    from pbem.config import load_settings

    env = {}
    for line in (ROOT / "deploy/pbem.env").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            k, _, v = line.partition("=")
            env[k] = v
    cfg = load_settings(env)
    assert cfg.database_url.startswith("postgresql") and not cfg.is_embedded_broker
    # and the commented defaults are the defaults
    for line in (ROOT / "deploy/pbem.env").read_text().splitlines():
        m = re.match(r"# (PBEM_[A-Z_]+)=(.*)$", line)
        if m:
            assert str(cfg.to_env().get(m.group(1), "")) in (m.group(2), m.group(2) + ".0"), line


def test_the_units_run_pbem_commands_that_exist():
    from pbem.cli import main

    units = list((ROOT / "deploy/systemd").glob("*.service"))
    assert {u.name for u in units} >= {"pbem-smtpd.service", "pbem-worker@.service", "pbem-beat.service",
                                       "pbem-web.service", "pbem-backup.service"}
    for unit in units:
        text = unit.read_text()
        assert "EnvironmentFile=/etc/pbem/pbem.env" in text
        for cmd in re.findall(r"/opt/pbem/\.venv/bin/pbem ([\w-]+)", text):
            assert cmd in main.commands, (unit.name, cmd)
    compose = (ROOT / "deploy/compose.yaml").read_text()
    for cmd in re.findall(r'\["pbem", "(\w+)"', compose):
        assert cmd in main.commands
    # exactly one beat in the compose layout
    assert len(re.findall(r'\["pbem", "beat"\]', compose)) == 1


def test_the_image_installs_the_wheel_and_runs_as_pbem():
    text = (ROOT / "deploy/Dockerfile").read_text()
    assert len(re.findall(r"^FROM ", text, re.M)) == 2
    build, run = text.split("\nFROM ", 2)[1:]
    assert "python -m build --wheel" in build
    assert "COPY --from=build" in run and "pbem-*.whl" in run and " -e " not in run
    assert re.search(r"^USER pbem$", run, re.M) and "COPY . " not in run  # the code is the wheel's, not the clone's


def test_compose_reads_the_env_file_its_header_names_and_relays_through_the_host_gateway():
    import yaml

    text = (ROOT / "deploy/compose.yaml").read_text()
    assert "cp deploy/pbem.env deploy/pbem.local.env" in text
    assert "deploy/pbem.local.env" in (ROOT / ".gitignore").read_text().split()
    services = yaml.safe_load(text)["services"]
    pbem = {name: s for name, s in services.items() if s.get("image") == "pbem:latest"}
    assert set(pbem) >= {"migrate", "smtpd", "worker", "beat", "web"}
    for name, s in pbem.items():
        assert s["env_file"] == ["pbem.local.env"], name
        assert "host.docker.internal:host-gateway" in s["extra_hosts"], name
        assert s["environment"]["PBEM_SMTP_URL"] == "${PBEM_SMTP_URL:-smtp://host.docker.internal:25}", name
        assert s["environment"]["PBEM_DATABASE_URL"].startswith("postgresql+psycopg://"), name


def test_the_backup_unit_makes_its_folder_and_keeps_it_private():
    """ProtectSystem=strict leaves the user pbem no way to make /var/backups/pbem, and systemd refuses
    a ReadWritePaths= that does not exist: the unit makes it first, as root (the + prefix), 0700."""
    text = (ROOT / "deploy/systemd/pbem-backup.service").read_text()
    made = re.findall(r"^ExecStartPre=\+/usr/bin/install -d -m 0700 -o pbem -g pbem (\S+)$", text, re.M)
    assert made == ["/var/backups/pbem"]
    writable = re.search(r"^ReadWritePaths=(.*)$", text, re.M).group(1).split()
    assert set(writable) <= {"/var/lib/pbem", *made}  # /var/lib/pbem: the user's home, made by useradd
    assert re.search(r"^UMask=0077$", text, re.M) and "/var/backups/pbem/pbem-" in text


def test_the_alert_rules_name_metrics_pbem_exports():
    """deploy/prometheus-pbem-rules.yml: valid YAML in Prometheus's shape, every metric an expression
    names is one pbem serves (a renamed metric would silence its alert), every failure mode covered."""
    import yaml

    exported = set(re.findall(r'counter\(\s*"(pbem_\w+)"', (ROOT / "pbem/metrics.py").read_text()))
    exported = {n + "_total" for n in exported} | {"pbem_mail_latency_seconds_bucket"}
    exported |= set(re.findall(r'gauge\("(pbem_\w+)"', (ROOT / "pbem/web/ops.py").read_text()))
    exported |= set(re.findall(r'GaugeMetricFamily\("(pbem_\w+)"', (ROOT / "pbem/web/ops.py").read_text()))
    rules = yaml.safe_load((ROOT / "deploy/prometheus-pbem-rules.yml").read_text())["groups"][0]["rules"]
    named = set()
    for rule in rules:
        assert {"alert", "expr", "labels", "annotations"} <= set(rule), rule
        named |= set(re.findall(r"\b(pbem_[a-z_]+)", rule["expr"]))
    assert named and not named - exported, sorted(named - exported)
    assert {"pbem_up", "pbem_beat_age_seconds", "pbem_outbox_oldest_age_seconds", "pbem_inbound_oldest_age_seconds",
            "pbem_inbound_failed_recent"} <= named
