"""Coaching: what the search bot thinks of the players' decisions once a game is over. Builds on
the core (the record, the seats, the mail) and hears from it through its events.

    review.py   the post-game review of each player's decisions: computed in the background on
                the bots' queue after the game ends, stored once, mailed, shown on the game's page
"""
