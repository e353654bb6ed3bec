"""Who may ask the live page anything: the Host a request names, and the peer a step comes from.

A page bound to 127.0.0.1 is still reachable from a web site the trainer has open, through DNS
rebinding: the site's name is made to resolve to 127.0.0.1, and the browser then sends our page
requests with the site's name in `Host`. So a request is answered only when its Host is one we
are known by: `127.0.0.1`, `localhost` or `[::1]` with our port, the address given to
`--web-host`, or, when that is a wildcard (0.0.0.0, ::), any IP address with our port (a
rebinding site always names itself by a DNS name). Stepping is taken only from this machine.

Usage:
    host_allowed(request.headers.get("Host"), bound="127.0.0.1", port=8765)
    peer_is_loopback(request.remote)
"""

from __future__ import annotations

import ipaddress

__all__ = ["host_allowed", "peer_is_loopback"]

_LOCAL_NAMES = {"127.0.0.1", "localhost", "::1"}
_WILDCARDS = {"0.0.0.0", "::", ""}


def _split_host(header: str) -> tuple[str, int | None] | None:
    """(host, port) of a Host header, `[::1]:80` included; None when it does not parse."""
    header = header.strip().lower()
    if header.startswith("["):
        host, _, rest = header[1:].partition("]")
        port_text = rest[1:] if rest.startswith(":") else ""
        if rest and not rest.startswith(":"):
            return None
    else:
        host, _, port_text = header.partition(":")
    if not host:
        return None
    if not port_text:
        return host, None
    if not port_text.isdigit():
        return None
    return host, int(port_text)


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def host_allowed(header: str | None, bound: str, port: int) -> bool:
    """Whether a request naming `header` as its Host is for us (see the module's rules)."""
    if not header:
        return False
    parsed = _split_host(header)
    if parsed is None:
        return False
    host, asked_port = parsed
    if (80 if asked_port is None else asked_port) != port:
        return False  # a browser leaves the port out only for 80
    bound = bound.strip("[]").lower()
    if host in _LOCAL_NAMES or host == bound:
        return True
    return bound in _WILDCARDS and _is_ip(host)


def peer_is_loopback(peer: str | None) -> bool:
    """Whether a connection comes from this machine (127.0.0.0/8, ::1, ::ffff:127.x)."""
    if not peer:
        return False
    try:
        address = ipaddress.ip_address(peer)
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return address.is_loopback
