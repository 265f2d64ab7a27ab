#!/usr/bin/env python3
"""An HTTP fault proxy between Coffer and a payment provider, for the tests (issue 33).

It forwards each HTTP/1.1 request it receives on LISTEN to UPSTREAM, unless a fault is set:

  pass       forward the request and its answer (the default)
  refuse     stop listening and drop open connections, so a connection is refused
  hang       read the request and never answer, nor forward it
  reset      forward the request, wait for the provider's answer, then reset the connection
             without passing the answer on: the provider acted, the caller does not know
  status     answer STATUS (500, 429, ...) at once, without forwarding
  slow       forward, and hold the answer DELAY_MS before passing it on

A fault applies to the next TIMES requests (all of them when TIMES is 0), then the proxy
passes again; with MATCH, only requests whose path contains it count (`"match": "/confirm"`
faults the confirmation of a charge, and passes the calls before it); `refuse` sees no request, so it lasts until the next PUT. It is set and read over a small HTTP API on CONTROL:

  PUT /fault   {"fault": "reset", "times": 1}   {"fault": "status", "status": 429}
               {"fault": "slow", "delay_ms": 3000}             answers the fault now set
  GET /fault   the fault now set
  GET /stats   {"requests": n, "forwarded": n, "faulted": n}

Only the standard library is needed. The proxy speaks just enough HTTP/1.1 for a client
such as reqwest: a request ends after its headers and Content-Length bytes of body, and each
request goes upstream on a connection of its own with `Connection: close`.

  scripts/fault-proxy.py LISTEN UPSTREAM CONTROL [RECORD]
                                       e.g. 127.0.0.1:0 127.0.0.1:18420 127.0.0.1:0

With RECORD, each request is appended to that file as one line of JSON: its method, path
and the names of its form and query parameters, each with the kind of its value ("digits",
"bool" or "text"), never the value itself (a card number passes through here).
scripts/check-stripe-params.py reads such a file.

Once both ports are bound it prints one line of JSON on stdout, {"listen": PORT, "control":
PORT}, so a test can start a proxy of its own on free ports (port 0) and read them.
"""

from __future__ import annotations

import asyncio
import json
import socket
import struct
import sys
from urllib.parse import parse_qsl, urlsplit
from dataclasses import asdict, dataclass

FAULTS = ("pass", "refuse", "hang", "reset", "status", "slow")
# Bounds on what the proxy reads, so a broken client cannot fill its memory.
MAX_HEAD = 64 * 1024
MAX_BODY = 16 * 1024 * 1024
# How long the proxy waits for the provider's next bytes before it gives the request up.
UPSTREAM_TIMEOUT = 120
# A status fault answers with one of these; anything else is refused by the control API.
STATUSES = {429: "Too Many Requests", 500: "Internal Server Error", 502: "Bad Gateway",
            503: "Service Unavailable", 504: "Gateway Timeout"}


@dataclass
class Fault:
    fault: str = "pass"
    times: int = 0
    status: int = 500
    delay_ms: int = 0
    match: str = ""


@dataclass
class Stats:
    requests: int = 0
    forwarded: int = 0
    faulted: int = 0


def split(address: str) -> tuple[str, int]:
    host, _, port = address.rpartition(":")
    return host, int(port)


class Proxy:
    def __init__(self, listen: str, upstream: str, record: str | None = None) -> None:
        self.record = record
        self.listen = split(listen)
        self.upstream = split(upstream)
        self.fault = Fault()
        self.stats = Stats()
        self.server: asyncio.base_events.Server | None = None
        self.clients: set[asyncio.StreamWriter] = set()

    async def open(self) -> None:
        if self.server is None:
            self.server = await asyncio.start_server(
                self.serve, *self.listen, reuse_address=True
            )
            # Port 0 takes a free port once; reopened after `refuse`, the proxy keeps it.
            self.listen = self.server.sockets[0].getsockname()[:2]

    async def close(self) -> None:
        if self.server is not None:
            self.server.close()
            await self.server.wait_closed()
            self.server = None

    async def set(self, fault: Fault) -> None:
        self.fault = fault
        if fault.fault == "refuse":
            # A client's kept-alive connection would still get through; a provider that
            # went away drops those too, first, since closing the listener waits for them.
            for writer in list(self.clients):
                writer.transport.abort()
            await self.close()
        else:
            await self.open()

    def take(self, path: str) -> Fault:
        """The fault for the request now read; a counted fault runs out."""
        fault = self.fault
        if fault.match and fault.match not in path:
            return Fault()
        if fault.fault != "pass" and fault.times > 0:
            fault.times -= 1
            if fault.times == 0:
                self.fault = Fault()
        return Fault(**asdict(fault))

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.clients.add(writer)
        try:
            while True:
                request = await read_message(reader)
                if request is None:
                    return
                self.stats.requests += 1
                if self.record:
                    with open(self.record, "a", encoding="utf-8") as out:
                        out.write(json.dumps(described(request)) + "\n")
                fault = self.take(described(request)["path"])
                if fault.fault not in ("pass", "slow"):
                    self.stats.faulted += 1
                if fault.fault == "hang":
                    while await reader.read(65536):  # until the client gives up
                        pass
                    return
                if fault.fault == "status":
                    writer.write(status_answer(fault.status))
                    await writer.drain()
                    continue
                answer = await self.forward(request)
                self.stats.forwarded += 1
                if fault.fault == "reset":
                    reset(writer)
                    return
                if fault.fault == "slow":
                    self.stats.faulted += 1
                    await asyncio.sleep(fault.delay_ms / 1000)
                writer.write(answer)
                await writer.drain()
                # An answer that ends only where its connection ends ends the client's too;
                # a framed one leaves the client's connection open for its next request.
                if not framed(answer):
                    return
        except (OSError, asyncio.IncompleteReadError, asyncio.TimeoutError, ValueError):
            pass
        finally:
            self.clients.discard(writer)
            if not writer.is_closing():
                writer.close()

    async def forward(self, request: bytes) -> bytes:
        reader, writer = await asyncio.open_connection(*self.upstream)
        try:
            writer.write(with_connection_close(request))
            await writer.drain()
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), UPSTREAM_TIMEOUT)
            body = b""
            while chunk := await asyncio.wait_for(reader.read(65536), UPSTREAM_TIMEOUT):
                body += chunk  # the upstream closes after its answer
                if len(body) > MAX_BODY:
                    raise ValueError("upstream body too large")
            return keep_alive(head) + body
        finally:
            writer.close()


async def read_message(reader: asyncio.StreamReader) -> bytes | None:
    """One request: its head and Content-Length bytes of body; None at a clean end."""
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except asyncio.IncompleteReadError as e:
        if e.partial:
            raise
        return None
    except asyncio.LimitOverrunError:
        raise ValueError("head too large")
    if len(head) > MAX_HEAD:
        raise ValueError("head too large")
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    if length > MAX_BODY:
        raise ValueError("body too large")
    body = await reader.readexactly(length) if length else b""
    return head + body


def kind(value: str) -> str:
    if value in ("true", "false"):
        return "bool"
    return "digits" if value.isdigit() else "text"


def described(request: bytes) -> dict:
    """A request's method, path and parameter names with their values' kinds."""
    head, _, body = request.partition(b"\r\n\r\n")
    method, target = head.split(b"\r\n", 1)[0].decode("latin-1").split(" ")[:2]
    url = urlsplit(target)
    pairs = parse_qsl(url.query, keep_blank_values=True)
    if b"application/x-www-form-urlencoded" in head.lower():
        pairs += parse_qsl(body.decode("utf-8", "replace"), keep_blank_values=True)
    return {"method": method, "path": url.path, "params": {n: kind(v) for n, v in pairs}}


def with_connection_close(request: bytes) -> bytes:
    head, _, body = request.partition(b"\r\n\r\n")
    lines = [l for l in head.split(b"\r\n") if not l.lower().startswith(b"connection:")]
    return b"\r\n".join(lines + [b"Connection: close"]) + b"\r\n\r\n" + body


def framed(message: bytes) -> bool:
    """Whether an answer says where it ends (a length, or chunks)."""
    lines = message.partition(b"\r\n\r\n")[0].split(b"\r\n")
    return any(l.lower().startswith((b"content-length:", b"transfer-encoding:")) for l in lines)


def keep_alive(head: bytes) -> bytes:
    """The upstream's head without its `Connection: close`, which was the proxy's doing.
    An answer without a length (read until close) keeps it, so the client ends there too."""
    lines = head[:-4].split(b"\r\n")
    if framed(head):
        lines = [l for l in lines if not l.lower().startswith(b"connection:")]
    return b"\r\n".join(lines) + b"\r\n\r\n"


def status_answer(status: int) -> bytes:
    body = json.dumps(
        {"error": {"type": "api_error", "message": f"fault proxy: {status}"}}
    ).encode()
    extra = b"Retry-After: 1\r\n" if status == 429 else b""
    return (
        f"HTTP/1.1 {status} {STATUSES[status]}\r\n".encode()
        + b"Content-Type: application/json\r\n"
        + extra
        + f"Content-Length: {len(body)}\r\n\r\n".encode()
        + body
    )


def reset(writer: asyncio.StreamWriter) -> None:
    """Closes with a TCP reset (linger 0), as a connection cut after the request went out."""
    sock = writer.get_extra_info("socket")
    if sock is not None:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    writer.transport.abort()


def read_fault(body: bytes) -> Fault:
    asked = json.loads(body or b"{}")
    if not isinstance(asked, dict):
        raise ValueError("the body must be a JSON object")
    fault = Fault(
        fault=asked.get("fault", "pass"),
        times=int(asked.get("times", 0)),
        status=int(asked.get("status", 500)),
        delay_ms=int(asked.get("delay_ms", 0)),
        match=str(asked.get("match", ""))[:200],
    )
    if fault.fault not in FAULTS:
        raise ValueError(f"fault must be one of {', '.join(FAULTS)}")
    if fault.status not in STATUSES:
        raise ValueError(f"status must be one of {sorted(STATUSES)}")
    if not 0 <= fault.delay_ms <= 600_000 or not 0 <= fault.times <= 1_000_000:
        raise ValueError("delay_ms is 0 to 600000, times 0 to 1000000")
    return fault


def control(proxy: Proxy):
    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            request = await read_message(reader)
            if request is None:
                return
            line = request.split(b"\r\n", 1)[0].decode()
            method, path = line.split(" ")[:2]
            body = request.partition(b"\r\n\r\n")[2]
            status, answer = 200, {}
            if method == "PUT" and path == "/fault":
                try:
                    await proxy.set(read_fault(body))
                    answer = asdict(proxy.fault)
                except (ValueError, TypeError) as e:
                    status, answer = 400, {"error": str(e)}
            elif method == "GET" and path == "/fault":
                answer = asdict(proxy.fault)
            elif method == "GET" and path == "/stats":
                answer = asdict(proxy.stats)
            else:
                status, answer = 404, {"error": "PUT /fault, GET /fault or GET /stats"}
            data = json.dumps(answer).encode()
            writer.write(
                f"HTTP/1.1 {status} {'OK' if status == 200 else 'Error'}\r\n".encode()
                + b"Content-Type: application/json\r\nConnection: close\r\n"
                + f"Content-Length: {len(data)}\r\n\r\n".encode()
                + data
            )
            await writer.drain()
        except (ConnectionError, ValueError, asyncio.IncompleteReadError):
            pass
        finally:
            writer.close()

    return serve


async def main(listen: str, upstream: str, control_address: str, record: str | None = None) -> None:
    proxy = Proxy(listen, upstream, record)
    await proxy.open()
    server = await asyncio.start_server(control(proxy), *split(control_address), reuse_address=True)
    control_port = server.sockets[0].getsockname()[1]
    # One line a test reads to learn the ports, port 0 having asked for free ones.
    print(json.dumps({"listen": proxy.listen[1], "control": control_port}), flush=True)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    if len(sys.argv) not in (4, 5):
        sys.exit(__doc__)
    try:
        asyncio.run(main(*sys.argv[1:]))
    except KeyboardInterrupt:
        pass
