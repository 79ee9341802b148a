"""The journal: an append-only, hash-chained SQLite log of everything the table saw and did.

WAL mode with synchronous=FULL: a record is on disk when `append` returns. Each record holds
the SHA-256 of the previous one, so any edit, insertion or deletion breaks the chain at the
first record it touches (`controller.journal.verify`). A forger with the file could re-chain
everything, so a journal written with a `signer` (the table's Ed25519 key, `signing.py`)
also keeps, in the same transaction as every write, the signed head of the chain in the
`signatures` table: without the key nobody makes those. Cutting off the newest records
still cannot be seen from the file alone: the newest signed head (the anchor) is kept
elsewhere, by surveillance.

Record kinds: `meta` (the table settings, first), `observation` (journaled before it is
applied), `event` (with `cause`, the sequence number of the observation that produced it)
and `link` (the shoe microcontroller's boot id and card counter, so a restarted service knows
which card reports it has already seen).
"""

from __future__ import annotations

import errno
import fcntl
import hashlib
import json
import os
import sqlite3
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from controller.errors import JournalError, JournalPathError

if TYPE_CHECKING:  # `cryptography` is imported only by a journal that signs or is checked
    from controller.journal.signing import Anchor, Signer

GENESIS = "0" * 64
IDENTITY_CHARS = 16  # of the first record's hash: `Journal.identity`
_SCHEMA = """
CREATE TABLE IF NOT EXISTS records (
    seq       INTEGER PRIMARY KEY,
    ts_us     INTEGER NOT NULL,
    kind      TEXT    NOT NULL,
    cause     INTEGER,
    body      TEXT    NOT NULL,
    prev_hash TEXT    NOT NULL,
    hash      TEXT    NOT NULL
);
CREATE TABLE IF NOT EXISTS signatures (
    seq       INTEGER PRIMARY KEY,
    hash      TEXT    NOT NULL,
    key       TEXT    NOT NULL,
    signature TEXT    NOT NULL
)
"""


@dataclass(frozen=True)
class Record:
    seq: int
    ts_us: int
    kind: str
    cause: int | None
    body: dict
    prev_hash: str
    hash: str


def canonical(body: dict) -> str:
    return json.dumps(body, sort_keys=True, separators=(",", ":"))


def record_hash(seq: int, ts_us: int, kind: str, cause: int | None, body_text: str,
                prev_hash: str) -> str:
    material = f"{seq}|{ts_us}|{kind}|{'' if cause is None else cause}|{body_text}|{prev_hash}"
    return hashlib.sha256(material.encode()).hexdigest()


class Journal:
    def __init__(self, path: str, clock: Callable[[], float] = time.time,
                 create: bool = True, signer: Signer | None = None):
        if not str(path).strip():
            # SQLite would open a temporary database, deleted at exit: nothing would be kept.
            raise JournalPathError("the journal path is empty: give a file (an empty path "
                                   "would keep nothing)")
        if not create and not os.path.exists(path):
            raise JournalPathError(f"{path}: no such journal")
        if os.path.isdir(path):
            raise JournalPathError(f"{path}: a directory, not a journal file")
        self.path = path
        self._clock = clock
        self._signer = signer
        self.read_only = not create
        try:
            if self.read_only:
                # Readers (verify, replay, report, surveillance) never take a write lock, so
                # they cannot stall the service writing the same journal.
                self._db = _open_for_reading(path)
                _check_is_journal(self._db, path)
            else:
                self._lock_file = _exclusive_lock(path)
                _create_private(path)
                self._db = sqlite3.connect(path, isolation_level=None,
                                           check_same_thread=False)
                tables = {name for (name,) in self._db.execute(
                    "SELECT name FROM sqlite_master WHERE type = 'table'")}
                if tables and "records" not in tables:
                    raise JournalError(f"{path}: an SQLite file of something else (tables "
                                       f"{', '.join(sorted(tables))}), not a Sabot journal")
                self._db.execute("PRAGMA journal_mode=WAL")
                self._db.execute("PRAGMA synchronous=FULL")
                self._db.executescript(_SCHEMA)
            tail = self._db.execute(
                "SELECT seq, hash FROM records ORDER BY seq DESC LIMIT 1").fetchone()
        except sqlite3.OperationalError as error:
            raise cannot(path, "open the journal", error) from None
        except sqlite3.DatabaseError as error:
            if "malformed" in str(error):
                raise damaged(path, error) from None
            if _looks_like_text(path):  # a plain mistake: exit 2, not "damaged"
                raise JournalPathError(f"{path}: a text file, not a Sabot journal") from None
            # A journal whose header was overwritten reads the same as any other binary
            # file: damaged evidence is not to be taken for a typo.
            raise JournalError(f"{path}: not an SQLite file: not a Sabot journal, or one "
                               f"whose header is damaged ({error})") from None
        self._seq, self._hash = tail if tail else (0, GENESIS)
        self.commits = 0  # durable transactions this process made (bench.e2e counts them)
        # One writer: the service hands every write to the table thread. Two threads
        # appending at once would be a bug of ours; it is refused, not serialised.
        self._writing = threading.Lock()

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        self._db.close()
        lock = getattr(self, "_lock_file", None)
        if lock is not None:
            lock.close()  # releases the flock

    @property
    def last_seq(self) -> int:
        return self._seq

    def identity(self) -> str | None:
        """The journal's name in the surveillance messages: the start of its first record's
        hash, which covers the table's settings and the microsecond it was written, so a
        table restarted with a new journal (whose numbers start at 1 again) is told from
        its old one. None while the journal has no record."""
        row = next(self._rows("SELECT hash FROM records WHERE seq = 1"), None)
        return str(row[0])[:IDENTITY_CHARS] if row else None

    def append(self, kind: str, body: dict, cause: int | None = None) -> Record:
        return self.append_many([(kind, body, cause)])[0]

    def append_many(self, items: Iterable[tuple[str, dict, int | None]]) -> list[Record]:
        """Append records in one transaction: all of them are durable, or none."""
        if self.read_only:
            raise JournalError(f"{self.path}: opened for reading only")
        if not self._writing.acquire(blocking=False):
            raise RuntimeError(f"{self.path}: two threads appended to the journal at once "
                               "(only the table thread writes it)")
        try:
            return self._append_locked(items)
        finally:
            self._writing.release()

    def _append_locked(self, items: Iterable[tuple[str, dict, int | None]]) -> list[Record]:
        records, seq, prev = [], self._seq, self._hash
        ts_us = int(self._clock() * 1_000_000)
        for kind, body, cause in items:
            seq += 1
            text = canonical(body)
            digest = record_hash(seq, ts_us, kind, cause, text, prev)
            records.append(Record(seq, ts_us, kind, cause, body, prev, digest))
            prev = digest
        if not records:
            return []
        head = self._signer.sign(seq, prev) if self._signer is not None else None
        try:
            with self._transaction():
                self._db.executemany(
                    "INSERT INTO records VALUES (?, ?, ?, ?, ?, ?, ?)",
                    [(r.seq, r.ts_us, r.kind, r.cause, canonical(r.body), r.prev_hash, r.hash)
                     for r in records])
                if head is not None:
                    self._db.execute("INSERT INTO signatures VALUES (?, ?, ?, ?)",
                                     (head.seq, head.hash, head.key, head.signature))
        except sqlite3.Error as error:  # disk full, I/O error, locked by a stranger
            raise cannot(self.path, "write the journal", error) from None
        self._seq, self._hash = seq, prev
        self.commits += 1
        return records

    def records(self, after: int = 0) -> Iterator[Record]:
        rows = self._rows("SELECT seq, ts_us, kind, cause, body, prev_hash, hash FROM records "
                          "WHERE seq > ? ORDER BY seq", (after,))
        for seq, ts_us, kind, cause, body, prev_hash, digest in rows:
            try:
                parsed = json.loads(body)
            except json.JSONDecodeError:
                raise JournalError(f"{self.path}: record {seq} is not JSON") from None
            if not isinstance(parsed, dict):  # every reader takes a record's keys
                raise JournalError(f"{self.path}: record {seq} is not a JSON object")
            yield Record(seq, ts_us, kind, cause, parsed, prev_hash, digest)

    def signatures(self) -> list[Anchor]:
        """Every signed head, oldest first (none in a journal written without a key)."""
        return self._anchors("SELECT seq, hash, key, signature FROM signatures ORDER BY seq")

    def signed_head(self, upto: int) -> Anchor | None:
        """The newest signed head at or before record `upto` (None: none)."""
        newest = self._anchors("SELECT seq, hash, key, signature FROM signatures WHERE "
                               "seq <= ? ORDER BY seq DESC LIMIT 1", (upto,))
        return newest[0] if newest else None

    def _anchors(self, query: str, parameters: tuple = ()) -> list[Anchor]:
        """The signed heads a query of the signatures finds (none in a journal written
        before journals were signed, which has no such table)."""
        try:
            rows = self._db.execute(query, parameters).fetchall()
        except sqlite3.OperationalError:  # written before journals were signed
            return []
        except sqlite3.DatabaseError as error:
            raise damaged(self.path, error) from None
        from controller.journal.signing import Anchor  # noqa: PLC0415 - see the top

        return [Anchor(int(seq), str(digest), str(key), str(signature))
                for seq, digest, key, signature in rows]

    def signed_rows(self) -> tuple[list[tuple], list[Anchor]]:
        """`raw_rows` and `signatures` as of one moment (one read transaction): a write of
        the service in between would otherwise look like an unsigned or a missing record."""
        self._db.execute("BEGIN")
        try:
            return list(self.raw_rows()), self.signatures()
        finally:
            self._db.execute("COMMIT")

    def raw_rows(self) -> Iterator[tuple]:
        """Rows as stored (body as text), for verification of the chain."""
        yield from self._rows(
            "SELECT seq, ts_us, kind, cause, body, prev_hash, hash FROM records ORDER BY seq")

    def _rows(self, query: str, parameters: tuple = ()) -> Iterator[tuple]:
        """The rows of a query of the records. A journal whose header and first pages read
        may have its records' pages damaged: every command that read one said "internal
        error: DatabaseError" (a trial, stop 52) where `verify` of another said so."""
        cursor = self._reading(self._db.execute, query, parameters)
        while batch := self._reading(cursor.fetchmany, 256):
            yield from batch  # outside the guard: a reader that stops early closes it here

    def _reading(self, call: Callable, *arguments):
        """`call(*arguments)`, SQLite's errors in reading as the journal's."""
        try:
            return call(*arguments)
        except sqlite3.ProgrammingError:  # a bug of ours (a closed journal), not the file's
            raise
        except sqlite3.OperationalError as error:
            raise cannot(self.path, "read the journal", error) from None
        except sqlite3.DatabaseError as error:
            raise damaged(self.path, error) from None

    def _transaction(self):
        db = self._db

        class _Tx:
            def __enter__(self):
                db.execute("BEGIN IMMEDIATE")

            def __exit__(self, exc_type, *_):
                db.execute("ROLLBACK" if exc_type else "COMMIT")

        return _Tx()


PRIVATE = 0o600  # the journal holds the live card order: nobody else on the Pi may read it


def _create_private(path: str) -> None:
    """Create the journal file owner-only before SQLite opens it: SQLite gives its -wal and
    -shm files the permissions of the database file."""
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE))
    except FileExistsError:
        pass
    except OSError as error:
        raise cannot(path, "create the journal", error.strerror) from None


def _exclusive_lock(path: str):
    """One writer per journal: a second process (a `deal --journal` on the live table's
    file) would fork the chain. The lock is an flock on PATH.lock, gone with the process."""
    # Held open for the journal's lifetime; owner-only like the journal itself.
    try:
        lock = hold_exclusively(f"{path}.lock", os.O_WRONLY | os.O_APPEND, PRIVATE)
    except OSError as error:  # the first write a start makes: the journal's, not the lock's
        raise cannot(path, "open the journal for writing", error.strerror) from None
    if lock is None:
        raise JournalError(f"{path}: the journal is being written by another process")
    return lock


def hold_exclusively(path: str, flags: int, mode: int):
    """The file at `path` (opened with `flags`, created with `mode`) under an exclusive
    flock, held for as long as the returned file is open and gone with the process; None
    when another process holds it. The file itself stays: a lock is its holder's open file,
    and one unlinked could be held by two. OSError: it cannot be opened."""
    descriptor = os.open(path, flags | os.O_CREAT, mode)
    lock = os.fdopen(descriptor, "ab" if flags & (os.O_WRONLY | os.O_RDWR) else "rb")
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        lock.close()
        return None
    return lock


def being_written(path: str) -> bool:
    """Whether a process holds the journal at `path` for writing now (`_exclusive_lock`;
    False where the lock cannot be looked at)."""
    try:
        with open(f"{path}.lock", "rb") as lock:
            fcntl.flock(lock, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    except OSError:
        return False
    return False


def _looks_like_text(path: str) -> bool:
    try:
        with open(path, "rb") as handle:
            head = handle.read(4096)
        head.decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    return b"\0" not in head


def _check_is_journal(db: sqlite3.Connection, path: str) -> None:
    """JournalPathError unless the file opened read-only holds a journal's records."""
    tables = {name for (name,) in db.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table'")}
    if "records" in tables:
        return
    db.close()
    if not tables and being_written(path):  # caught as the service makes it
        raise JournalError(f"{path}: being created by the service: try again in a moment")
    if os.path.getsize(path) == 0:
        raise JournalPathError(f"{path}: an empty file, not a Sabot journal")
    if not tables:
        raise JournalPathError(
            f"{path}: holds no records: not a Sabot journal, or one copied without its "
            f"{os.path.basename(path)}-wal file while the service was writing it (copy "
            "both, or stop the service first)")
    raise JournalPathError(f"{path}: an SQLite file of something else (tables "
                           f"{', '.join(sorted(tables))}), not a Sabot journal")


def _open_for_reading(path: str) -> sqlite3.Connection:
    """The journal, read-only. SQLite reads a WAL database only with its shared-memory
    index (PATH-shm) beside it, which it must create when missing: a reader without write
    access to the folder (a surveillance user, a copy on read-only media) could not open a
    journal at all. A journal closed cleanly has no log left (PATH-wal): what it holds is all
    in the file, and it is then opened immutable, which needs no index. One with records
    still in its log cannot be read that way without losing them: refused, saying how."""
    def connect(flags: str) -> sqlite3.Connection:
        db = sqlite3.connect(f"file:{path}?{flags}", uri=True, isolation_level=None,
                             check_same_thread=False)
        db.execute("SELECT count(*) FROM sqlite_master")  # SQLite opens lazily
        return db

    try:
        return connect("mode=ro")
    except sqlite3.OperationalError:
        why = unwritable(path)
        if not why:
            raise
    log = f"{path}-wal"
    if os.path.exists(log) and os.path.getsize(log) > 0:
        raise JournalError(f"{path}: cannot read the journal here ({why}): its newest records "
                           f"are still in {log}, which SQLite reads only with write access "
                           "beside it; copy the journal with its -wal file to a writable "
                           "folder, or read it as the service's user") from None
    return connect("immutable=1")


def damaged(path: str, detail: object) -> JournalError:
    """`PATH: damaged: ...`: SQLite cannot read the file's pages."""
    return JournalError(f"{path}: damaged: SQLite cannot read it ({detail}); a journal cut "
                        "short, overwritten or copied while it was being written")


def cannot(path: str, what: str, detail: object) -> JournalError:
    """`PATH: cannot WHAT: WHY (DETAIL)`: SQLite's own words ("disk I/O error", "unable to
    open database file") do not say that the storage went read-only, which is what an SD
    card does when it fails (the kernel remounts it), nor whose permissions refused. (A WAL
    journal cannot even be read without writing beside it.)"""
    why = unwritable(path)
    return JournalError(f"{path}: cannot {what}{': ' + why if why else ''} ({detail})")


def unwritable(path: str) -> str:
    """Why the journal at `path` cannot be written, if its storage or its permissions say so
    ("" otherwise). Asked by trying: an ext4 card the kernel turned read-only after an error
    still shows `rw` to statvfs and access(2) on recent kernels, and only refuses writes
    (EROFS). The try is an unnamed temporary file: nothing is left beside the journal."""
    folder = os.path.dirname(os.path.abspath(path))
    try:
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as error:
        if error.errno == errno.EROFS:
            return "its storage is read-only"
        if error.errno in (errno.EACCES, errno.EPERM):
            return "its folder is not writable by this user"
        return ""  # missing, full: SQLite's words say enough
    if os.path.exists(path) and not os.access(path, os.W_OK):
        return "the file is not writable by this user"
    return ""
