"""Addresses and who is at them: login links, commands held until the owner of an address confirms
them, addresses that bounce. Builds on the core (its accounts).

    auth.py            one-time links to sign up, log in, take a new address
    confirmations.py   commands held until the address's owner confirms them
    deliverability.py  addresses that bounce: marked, held, cleared
"""
