#!/usr/bin/env python3
"""A small SFTP server for Coffer's tests: one user, a password or a key, one directory.

scripts/sftp.sh runs it inside its own pinned venv (asyncssh) and is the only caller:

    sftp-server.py keys STATE_DIR
        creates the host key and the test client's key pair under STATE_DIR once; later runs
        keep them, so the host key the tests pin stays the same across restarts.
    sftp-server.py info STATE_DIR ROOT PORT USER PASSWORD
        prints the one-line JSON that `make test` hands to the tests as COFFER_TEST_SFTP.
    sftp-server.py serve STATE_DIR ROOT PORT USER PASSWORD
        serves SFTP on 127.0.0.1:PORT until killed.

Every session sees ROOT as "/" (asyncssh's chroot option), so a test can place a file in ROOT
directly and find it over SFTP, and a client cannot reach anything outside it.
"""

import asyncio
import hmac
import json
import os
import sys

import asyncssh

HOST = "127.0.0.1"
HOST_KEY = "host_ed25519"
CLIENT_KEY = "client_ed25519"


def key_paths(state_dir):
    return (
        os.path.join(state_dir, HOST_KEY),
        os.path.join(state_dir, CLIENT_KEY),
        os.path.join(state_dir, CLIENT_KEY + ".pub"),
    )


def write_private_key(path, key):
    # Written beside its final name and renamed, so a run killed half-way leaves no empty key
    # that the next run would take for a good one.
    partial = path + ".partial"
    key.write_private_key(partial)
    os.chmod(partial, 0o600)
    os.replace(partial, path)


def ensure_keys(state_dir):
    os.makedirs(state_dir, mode=0o700, exist_ok=True)
    host_key, client_key, client_pub = key_paths(state_dir)
    if not os.path.exists(host_key):
        write_private_key(host_key, asyncssh.generate_private_key("ssh-ed25519"))
    if not os.path.exists(client_key):
        write_private_key(client_key, asyncssh.generate_private_key("ssh-ed25519"))
    if not os.path.exists(client_pub):
        asyncssh.read_private_key(client_key).write_public_key(client_pub)


def public_line(private_key_path):
    key = asyncssh.read_private_key(private_key_path)
    return key.export_public_key("openssh").decode().strip()


def info(state_dir, root, port, user, password):
    host_key, client_key, _ = key_paths(state_dir)
    return {
        "host": HOST,
        "port": int(port),
        "user": user,
        "password": password,
        "client_key": client_key,
        "client_public_key": public_line(client_key),
        "host_key": public_line(host_key),
        "root": root,
    }


class TestUserServer(asyncssh.SSHServer):
    """Lets one user in, with either the password or the client key, and nobody else."""

    def __init__(self, user, password, client_public_key):
        self._user = user
        self._password = password
        self._client_public_key = client_public_key

    def begin_auth(self, username):
        return True

    def password_auth_supported(self):
        return True

    def validate_password(self, username, password):
        # compare_digest keeps the check's duration independent of where the strings differ.
        return username == self._user and hmac.compare_digest(
            password.encode(), self._password.encode()
        )

    def public_key_auth_supported(self):
        return True

    def validate_public_key(self, username, key):
        return username == self._user and key == self._client_public_key


async def serve(state_dir, root, port, user, password):
    host_key, _, client_pub = key_paths(state_dir)
    client_public_key = asyncssh.read_public_key(client_pub)
    os.makedirs(root, exist_ok=True)
    await asyncssh.listen(
        HOST,
        int(port),
        server_host_keys=[host_key],
        server_factory=lambda: TestUserServer(user, password, client_public_key),
        sftp_factory=lambda chan: asyncssh.SFTPServer(chan, chroot=root.encode()),
        # SFTP only: with no process or session factory asyncssh refuses shells and commands.
        allow_scp=False,
    )
    print(f"sftp-server: listening on {HOST}:{port}, root {root}", flush=True)
    await asyncio.Event().wait()


def main(argv):
    if len(argv) == 3 and argv[1] == "keys":
        ensure_keys(argv[2])
        return 0
    if len(argv) == 7 and argv[1] == "info":
        print(json.dumps(info(*argv[2:]), separators=(",", ":")))
        return 0
    if len(argv) == 7 and argv[1] == "serve":
        asyncio.run(serve(*argv[2:]))
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
