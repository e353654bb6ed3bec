"""Who the live page answers: its own Host names only (DNS rebinding), steps from this machine."""

from __future__ import annotations

import argparse

import pytest

from scenarios.web.guard import host_allowed, peer_is_loopback
from scenarios.web.options import WebChoice, add_web_options, web_choice


@pytest.mark.parametrize(
    ("header", "allowed"),
    [
        ("127.0.0.1:8765", True),
        ("localhost:8765", True),
        ("LOCALHOST:8765", True),
        ("[::1]:8765", True),
        ("127.0.0.1:9999", False),  # another port: not us
        ("127.0.0.1", False),  # no port means 80
        ("evil.example:8765", False),  # a rebinding site names itself
        ("192.168.1.20:8765", False),  # an address we were not bound to
        ("", False),
        (None, False),
        ("[::1", False),
        ("127.0.0.1:87x5", False),
    ],
)
def test_a_loopback_page_answers_to_its_own_names_only(header: str | None, allowed: bool) -> None:
    assert host_allowed(header, "127.0.0.1", 8765) is allowed


def test_a_page_open_to_the_room_takes_addresses_but_never_a_name() -> None:
    assert host_allowed("192.168.1.20:8765", "0.0.0.0", 8765)
    assert host_allowed("[fe80::1]:8765", "::", 8765)
    assert not host_allowed("evil.example:8765", "0.0.0.0", 8765)
    assert host_allowed("trainer.lan:8765", "trainer.lan", 8765)  # the name it was given
    assert not host_allowed("other.lan:8765", "trainer.lan", 8765)


@pytest.mark.parametrize(
    ("peer", "local"),
    [
        ("127.0.0.1", True),
        ("127.4.5.6", True),
        ("::1", True),
        ("::ffff:127.0.0.1", True),
        ("192.168.1.20", False),
        ("::ffff:192.168.1.20", False),
        (None, False),
        ("nonsense", False),
    ],
)
def test_steps_come_from_this_machine_only(peer: str | None, local: bool) -> None:
    assert peer_is_loopback(peer) is local


def _parsed(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_web_options(parser)
    return parser.parse_args(list(argv))


def test_the_flags_and_the_warning_line() -> None:
    assert web_choice(_parsed()) is None
    assert web_choice(_parsed("--web")) == WebChoice("127.0.0.1", 0)
    assert web_choice(_parsed("--web-port", "8765")) == WebChoice("127.0.0.1", 8765)
    room = web_choice(_parsed("--web", "--web-host", "0.0.0.0"))
    assert room is not None and room.open_to_network
    assert "anyone on this network can watch" in (room.warning() or "")
    assert WebChoice().warning() is None and WebChoice("localhost").warning() is None
    with pytest.raises(SystemExit):
        _parsed("--web-port", "70000")
