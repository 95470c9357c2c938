"""The rule on addresses (pbem/net/rule.py), the same on every Python: what
is reachable from the whole Internet, and not the server's own, may be
called; the blocks Python's own tables miss in some releases (3.11 calls
192.0.0.192, multicast, ``::a.b.c.d``, NAT64 and 6to4 forms of private
addresses, the documentation and SRv6 blocks global) are closed."""
from __future__ import annotations

import ipaddress

import pytest

from pbem.net.rule import networks, numeric_but_not_an_address, own_addresses, why_not

PRIVATE = "it is on a private network"
NONE = frozenset()


@pytest.mark.parametrize("address", [
    "100.64.0.1", "100.100.100.200", "100.127.255.254",  # carrier-grade NAT, Tailscale, a cloud's metadata
    "192.0.0.192", "192.0.0.9",  # IETF protocol assignments (is_global in 3.11)
    "169.254.169.254", "127.0.0.1", "127.8.9.10", "10.1.2.3", "172.16.0.1", "192.168.1.1", "0.0.0.0", "0.1.2.3",
    "198.18.0.1", "192.0.2.1", "198.51.100.1", "203.0.113.1", "192.88.99.1", "255.255.255.255", "240.0.0.1",
    "224.0.0.1", "233.252.0.1", "239.255.255.250",  # multicast (is_global in 3.11)
    "::", "::1", "::7f00:1", "::a00:1",  # IPv4-compatible (is_global in 3.11)
    "::ffff:127.0.0.1", "::ffff:a9fe:a9fe", "::ffff:100.100.100.200",  # IPv4-mapped
    "64:ff9b::7f00:1", "64:ff9b::a9fe:a9fe", "64:ff9b:1::808:808",  # NAT64 to private; local-use NAT64
    "2002:7f00:1::", "2002:a9fe:a9fe::1",  # 6to4 of private addresses
    "2001::1", "2001:db8::1", "3fff::1", "5f00::1", "100::1",
    "fc00::1", "fd12:3456::1", "fe80::1", "fe80::1%2", "fec0::1", "ff02::1", "ff0e::1"])
def test_not_on_the_internet(address):
    assert why_not(address, own=NONE) != "", address


@pytest.mark.parametrize("address", ["8.8.8.8", "1.1.1.1", "162.159.135.232", "2606:4700::1111", "2a00:1450::1",
                                     "::ffff:8.8.8.8", "64:ff9b::808:808", "2002:808:808::1"])
def test_on_the_internet(address):
    assert why_not(address, own=NONE) == ""


def test_an_embedded_private_address_is_named():
    assert why_not("64:ff9b::a9fe:a9fe", own=NONE) == "it leads to 169.254.169.254, on a private network"
    assert why_not("::ffff:127.0.0.1", own=NONE) == PRIVATE


def test_the_allow_list_counts_as_the_internet():
    allow = networks(["127.0.0.2", "10.0.0.0/24", "fd00::/8"])
    assert why_not("127.0.0.2", allow, own=NONE) == "" and why_not("::ffff:127.0.0.2", allow, own=NONE) == ""
    assert why_not("10.0.0.200", allow, own=NONE) == "" and why_not("fd00::5", allow, own=NONE) == ""
    assert why_not("127.0.0.1", allow, own=NONE) == PRIVATE and why_not("10.0.1.1", allow, own=NONE) == PRIVATE
    with pytest.raises(ValueError, match="'10.0.0.0/33' is no network"):
        networks(["10.0.0.0/33"])


def test_the_servers_own_public_address_is_refused():
    """A public address on one of the server's interfaces reaches whatever
    listens on all of them, past a firewall that trusts local traffic."""
    mine = frozenset({ipaddress.ip_address("198.35.26.96")})
    assert why_not("198.35.26.96", own=mine) == "it is this server's own address"
    assert why_not("198.35.26.97", own=mine) == ""
    found = own_addresses()  # this machine's, as Linux lists them
    assert ipaddress.ip_address("127.0.0.1") in found and ipaddress.ip_address("::1") in found


@pytest.mark.parametrize("host", ["2130706433", "0x7f000001", "0177.0.0.1", "127.1", "0x7f.1", "127.0.0.1.",
                                  "017700000001", "1.2.3.04"])
def test_a_number_that_is_no_address_is_no_name_either(host):
    assert numeric_but_not_an_address(host)


@pytest.mark.parametrize("host", ["127.0.0.1", "::1", "[::1]", "discord.com", "1e100.net", "0x7f.example",
                                  "ntfy.sh", "a.1b"])
def test_names_and_addresses_are_read_as_such(host):
    assert not numeric_but_not_an_address(host)


def test_the_allow_list_setting_is_read_or_stops_the_process():
    from pbem.config import load_settings

    assert load_settings({"PBEM_HTTP_ALLOW": "10.0.0.5, fd00::/8"}).http_allow == ("10.0.0.5/32", "fd00::/8")
    assert load_settings({}).http_allow == ()
    with pytest.raises(ValueError, match="PBEM_HTTP_ALLOW: 'ten' is not a network"):
        load_settings({"PBEM_HTTP_ALLOW": "ten"})
    with pytest.raises(ValueError, match="PBEM_NOTIFY_PRIVATE_HOSTS is no more"):  # it allowed every network
        load_settings({"PBEM_NOTIFY_PRIVATE_HOSTS": "1"})
