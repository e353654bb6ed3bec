"""The live page's command-line flags, the same on `demo`, `run`, `exercise` and `puzzle`: `--web`,
`--web-host`, `--web-port`.

Loopback by default: the page shows a run's files and steps it, so nobody else on the network
should see it unless asked for. `--web-host` opens it to a room's network (a projector on
another machine), and the command says so in a warning line.

Usage:
    add_web_options(parser)
    choice = web_choice(parser.parse_args(["--web", "--web-port", "8765"]))  # WebChoice or None
"""

from __future__ import annotations

import argparse
import ipaddress
from dataclasses import dataclass

__all__ = ["LOOPBACK", "WebChoice", "add_web_options", "web_choice"]

LOOPBACK = "127.0.0.1"


@dataclass(frozen=True)
class WebChoice:
    """Where the live page is served: an address to bind and a port (0: a free one)."""

    host: str = LOOPBACK
    port: int = 0

    @property
    def open_to_network(self) -> bool:
        """Whether anyone but this machine can reach it."""
        try:
            return not ipaddress.ip_address(self.host.strip("[]")).is_loopback
        except ValueError:
            return self.host != "localhost"  # a name: whatever it resolves to, not only us

    def warning(self) -> str | None:
        """The line a command prints when the page is open to the network, else None."""
        if not self.open_to_network:
            return None
        return (
            f"warning: the live page listens on {self.host}: anyone on this network can "
            f"watch the run (stepping stays this machine's only)"
        )


def add_web_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--web",
        action="store_true",
        help="serve a live page of the checkpoint, Kafka's offsets and the verdict "
        "(for a projector); its address is printed",
    )
    parser.add_argument(
        "--web-host",
        metavar="HOST",
        help=f"with --web: listen on HOST instead of {LOOPBACK} (0.0.0.0: every "
        "network of this machine), so a room can open the page; a warning says so",
    )
    parser.add_argument(
        "--web-port",
        type=_port,
        default=0,
        metavar="PORT",
        help="with --web: the page's port (default: a free one, printed)",
    )


def web_choice(args: argparse.Namespace) -> WebChoice | None:
    """What the flags asked for; None without --web (--web-host or --web-port imply it)."""
    if not (args.web or args.web_host or args.web_port):
        return None
    return WebChoice(host=args.web_host or LOOPBACK, port=args.web_port)


def _port(text: str) -> int:
    try:
        port = int(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number") from error
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{port} is not a port number (0 to 65535)")
    return port
