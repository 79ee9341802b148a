"""Signed chain heads: what makes a re-chained journal, or one cut short, detectable.

The SHA-256 chain alone proves nothing against someone who has the file: they can change a
card and recompute every hash. So the service signs the head of the chain (the newest
record's sequence number and hash) with the table's Ed25519 key in the transaction of every
write (`Journal(signer=...)`), and publishes the newest signed head, the **anchor**, to
surveillance. `verify` checks the signatures against a public key it trusts (never one the
journal itself names), and an anchor kept elsewhere shows a journal cut short.

Key files: the private key, PEM (PKCS #8), owner-only, created on first use; beside it
`KEY.pub`, one line `ed25519 <64 hex digits>`, to hand to surveillance.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import (
    Ed25519PrivateKey,
    Ed25519PublicKey,
)

from controller.errors import JournalKeyError

PUBLIC_PREFIX = "ed25519 "
SIGNED_FIELDS = ("seq", "hash", "key", "signature")
# The labels an anchor may carry, and their shapes: they are printed in verdicts, so they
# may hold nothing a terminal would act on.
LABELS = {"journal": re.compile(r"[0-9a-f]{16}"),
          "table": re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")}
LABEL_SHAPES = {"journal": "16 hex digits (the journal's name)",
                "table": "a table id (letters, digits, _ . -)"}


def head_message(seq: int, digest: str) -> bytes:
    """What is signed: the chain head, tagged so a signature means nothing elsewhere."""
    return f"sabot-journal-head-v1\n{seq}\n{digest}".encode()


@dataclass(frozen=True)
class Anchor:
    """A signed chain head: record `seq` has hash `hash`, signed by the key `key`. `journal`
    and `table` (optional, not signed) say whose it is, so an auditor filing many anchors can
    tell them apart: `verify --print-anchor` and the monitor write them; an anchor naming
    another journal than the one it is checked against fails, naming both."""

    seq: int
    hash: str
    key: str  # the public key, 64 hex digits
    signature: str  # 128 hex digits
    journal: str = ""  # the journal's name (`Journal.identity`), 16 hex digits
    table: str = ""  # the table's id, as its config names it

    def head(self) -> dict:
        """The signed part alone, as the surveillance messages carry it (a monitor of an
        earlier version takes an anchor with exactly these keys)."""
        return {name: getattr(self, name) for name in SIGNED_FIELDS}

    def to_json(self) -> str:
        labels = {name: getattr(self, name) for name in LABELS if getattr(self, name)}
        return json.dumps({**self.head(), **labels}, sort_keys=True, separators=(",", ":"))

    @classmethod
    def from_dict(cls, data: object, where: str) -> Anchor:
        fields = {"seq": int, "hash": str, "key": str, "signature": str}  # SIGNED_FIELDS
        shape = (f"an anchor is a JSON object with exactly {', '.join(fields)}, and maybe "
                 f"{' and '.join(LABELS)} (as `sabot verify --print-anchor` prints it)")
        if not isinstance(data, dict):
            raise JournalKeyError(f"{where}: {shape}")
        missing, extra = set(fields) - set(data), set(data) - set(fields) - set(LABELS)
        if missing or extra:
            said = "; ".join(part for part in (
                f"no {', '.join(sorted(missing))}" if missing else "",
                f"{', '.join(sorted(map(str, extra)))} too" if extra else "") if part)
            raise JournalKeyError(f"{where}: {said}: {shape}")
        for name, kind in fields.items():
            if type(data[name]) is not kind:  # a bool is no record number
                noun = "a whole number" if kind is int else "a string"
                raise JournalKeyError(f"{where}: its {name} is {str(data[name])[:40]!r}, "
                                      f"not {noun}: {shape}")
        for name, pattern in LABELS.items():
            if name in data and not (isinstance(data[name], str) and (
                    data[name] == "" or pattern.fullmatch(data[name]))):  # "": none
                raise JournalKeyError(f"{where}: its {name} is {str(data[name])[:40]!r}, "
                                      f"not {LABEL_SHAPES[name]}: {shape}")
        return cls(**data)

    @classmethod
    def load(cls, path: str | Path) -> Anchor:
        try:
            text = Path(path).read_text(encoding="utf-8").strip()
            lines = [line for line in text.splitlines() if line.strip()]
            return cls.from_dict(json.loads(lines[-1] if lines else ""), str(path))
        except OSError as error:
            raise JournalKeyError(f"{path}: cannot read the anchor ({error.strerror})") from None
        except JournalKeyError:
            raise
        except (ValueError, UnicodeDecodeError):
            raise JournalKeyError(f"{path}: not an anchor (one JSON line, as `sabot verify "
                                  "--print-anchor` prints it)") from None

    def signed_by(self, public: Ed25519PublicKey) -> bool:
        try:
            public.verify(bytes.fromhex(self.signature), head_message(self.seq, self.hash))
        except (InvalidSignature, ValueError):
            return False
        return public_hex(public) == self.key


class Signer:
    def __init__(self, private: Ed25519PrivateKey):
        self._private = private
        self.public = private.public_key()
        self.key = public_hex(self.public)

    def sign(self, seq: int, digest: str) -> Anchor:
        signature = self._private.sign(head_message(seq, digest)).hex()
        return Anchor(seq, digest, self.key, signature)


def public_hex(public: Ed25519PublicKey) -> str:
    return public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw).hex()


def public_key_from_hex(text: str, where: str) -> Ed25519PublicKey:
    try:
        return Ed25519PublicKey.from_public_bytes(bytes.fromhex(text))
    except ValueError:
        raise JournalKeyError(f"{where}: not an Ed25519 public key (64 hex digits)") from None


def load_public_key(path: str | Path) -> Ed25519PublicKey:
    """A `KEY.pub` file (`ed25519 <hex>`), or the private key file itself."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8").strip()
    except OSError as error:
        raise JournalKeyError(f"{path}: cannot read the key ({error.strerror})") from None
    except UnicodeDecodeError:
        raise JournalKeyError(f"{path}: not a key file") from None
    if text.startswith(PUBLIC_PREFIX):
        return public_key_from_hex(text[len(PUBLIC_PREFIX):].strip(), str(path))
    if text.startswith("-----BEGIN PUBLIC KEY"):  # the same key as OpenSSL writes it
        return _public_from_pem(text.encode(), path)
    if not text.startswith("-----BEGIN"):
        raise JournalKeyError(f"{path}: not a journal key: a public key file (KEY.pub) holds "
                              f"one line '{PUBLIC_PREFIX}<64 hex digits>'")
    return _private_from_pem(text.encode(), path).public_key()


PRIVATE = 0o600


def load_or_create_signer(path: str | Path) -> Signer:
    """The table's signing key at `path`, created (owner-only, with `path`.pub) if absent."""
    path = Path(path)
    if not path.exists():
        private = Ed25519PrivateKey.generate()
        pem = private.private_bytes(serialization.Encoding.PEM,
                                    serialization.PrivateFormat.PKCS8,
                                    serialization.NoEncryption())
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE)
            with os.fdopen(descriptor, "wb") as file:
                file.write(pem)
                file.flush()
                os.fsync(file.fileno())
            public_file = Path(f"{path}.pub")
            public_file.write_text(f"{PUBLIC_PREFIX}{public_hex(private.public_key())}\n")
        except FileExistsError:
            pass  # another process made it a moment ago: use theirs
        except OSError as error:
            raise JournalKeyError(f"{path}: cannot create the journal key "
                                  f"({error.strerror})") from None
    try:
        data = path.read_bytes()
    except OSError as error:
        raise JournalKeyError(f"{path}: cannot read the journal key ({error.strerror})") from None
    if path.stat().st_mode & 0o077:
        raise JournalKeyError(f"{path}: the journal key is readable by others (chmod 600 it): "
                              "whoever reads it can sign a forged journal")
    return Signer(_private_from_pem(data, path))


def _public_from_pem(data: bytes, path: Path) -> Ed25519PublicKey:
    try:
        public = serialization.load_pem_public_key(data)
    except (ValueError, TypeError):
        raise JournalKeyError(f"{path}: not a PEM public key") from None
    if not isinstance(public, Ed25519PublicKey):
        raise JournalKeyError(f"{path}: the journal key must be Ed25519")
    return public


def _private_from_pem(data: bytes, path: Path) -> Ed25519PrivateKey:
    try:
        private = serialization.load_pem_private_key(data, password=None)
    except (ValueError, TypeError):
        raise JournalKeyError(f"{path}: not an unencrypted PEM private key") from None
    if not isinstance(private, Ed25519PrivateKey):
        raise JournalKeyError(f"{path}: the journal key must be Ed25519")
    return private
