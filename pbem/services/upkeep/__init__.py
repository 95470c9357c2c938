"""The periodic duties, run by Celery beat: the layer above every room (like wiring.py), which may
call any of them.

    sweep.py      the periodic sweep: the games' deadlines, then the daily digests
    retention.py  old rows pruned in batches
"""
