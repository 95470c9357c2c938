"""Load run for the operations checks (not a test: run by hand), `pbem bench pipeline`'s machinery (a fresh
PostgreSQL database, Redis, the real SMTP receiver in this process, 2 real Celery workers), plus a
Celery beat and gunicorn serving the site: /metrics read every 2 s during the load (the largest
gauges kept), then GET /healthz and /metrics over loopback, all written to a file:

    .venv/bin/python -m tests.ops_health.load_run 400 /tmp/health-after-load.txt
"""
import os, subprocess, sys, time, urllib.request, urllib.error
from pbem.bench.env import bench_settings, free_port, gunicorn_command, stop_server
from pbem.bench.pipeline import rig, run_pipeline
from pbem.bench.engine import format_table
from pbem.config import ROOT

MAILS = int(sys.argv[1]) if len(sys.argv) > 1 else 400
out_path = sys.argv[2] if len(sys.argv) > 2 else "/tmp/health-after-load.txt"


def get(url):
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


with bench_settings() as cfg:
    env = dict(os.environ, **cfg.to_env())
    beat = subprocess.Popen([sys.executable, "-m", "celery", "-A", "worker", "beat", "--loglevel=WARNING",
                             "-s", str(cfg.var_dir / "beat-schedule")], cwd=str(ROOT), env=env)
    port = free_port()
    web = subprocess.Popen(gunicorn_command("-w", "2", "-b", f"127.0.0.1:{port}", "pbem.web:create_app()"),
                           cwd=str(ROOT), env=env)
    t0 = time.monotonic()
    try:
        import threading
        peaks, done = {}, threading.Event()

        def watch():  # /metrics every 2 s during the load: the largest of each gauge
            while not done.wait(2):
                st, text = get(f"http://127.0.0.1:{port}/metrics")
                for line in text.splitlines():
                    name, _, v = line.partition(" ")
                    if name in ("pbem_queue_depth", "pbem_queue_unacked", "pbem_inbound_waiting",
                                "pbem_inbound_oldest_age_seconds", "pbem_outbox_unsent"):
                        peaks[name] = max(peaks.get(name, 0.0), float(v))

        with rig(2, pool="threads", concurrency=2) as r:
            w = threading.Thread(target=watch); w.start()
            fig = run_pipeline(mails=MAILS, games=40, on=r)
            done.set(); w.join()
            print(format_table([fig.row()]))
            while time.monotonic() - t0 < 75:  # the beat's deadline sweep runs a minute after it starts
                time.sleep(1)
            hs, health = get(f"http://127.0.0.1:{port}/healthz")
            ms, metrics = get(f"http://127.0.0.1:{port}/metrics")
        with open(out_path, "w") as f:
            f.write(f"# {MAILS} mails: {format_table([fig.row()])}\n\n# during the load, the largest gauges "
                    f"(/metrics every 2 s): {peaks}\n\n# GET /healthz -> {hs}\n{health}\n\n"
                    f"# GET /metrics -> {ms}\n{metrics}")
        print(f"/healthz {hs}; /metrics {ms}; written to {out_path}")
    finally:
        stop_server(web)
        stop_server(beat)
