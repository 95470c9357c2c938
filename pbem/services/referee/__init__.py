"""The referee: changing a running game's course -- moves taken back (at once, or with the others'
consent), disputes settled by an admin, the game master's powers. Builds on the core.

    undo.py      take-back and UNDO, and the rewind they share with a rollback
    disputes.py  DISPUTE, and an admin's rollback, forced move and seat adjustment
    master.py    the game master: deadlines, pause and resume, ejecting and seating, the policy, ending
"""
