"""Following games beyond the board mails: table talk, observers and the daily digest by mail,
chat and push channels, calendars. Builds on the core and listens to its events.

    channels.py       a player's chat channels and a game's table channel
    notifications.py  what those channels are sent, and when
    messages.py       SAY, OBSERVE, STOP, NOTIFY, the daily digest mail
    calendars.py      each user's calendar feed of deadlines, one game's .ics
"""
