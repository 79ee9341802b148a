"""Signed chain heads (issue 12): a re-chained, extended or cut journal is caught by a key or
an anchor kept outside the file, which the plain SHA-256 chain cannot do."""

import json
import os
import sqlite3
import stat

import pytest

from controller.cli import main
from controller.errors import JournalKeyError
from controller.game.script import parse_script
from controller.journal.signing import Anchor, load_or_create_signer, load_public_key
from controller.journal.store import Journal
from controller.journal.verify import latest_anchor, verify
from controller.service.table_service import TableService
from tests.controller.test_journal import SCRIPT, SETTINGS, rehash_from


def signed_deal(tmp_path, script=SCRIPT):
    signer = load_or_create_signer(tmp_path / "table.key")
    path = tmp_path / "j.db"
    with Journal(str(path), signer=signer) as journal:
        service = TableService(journal, SETTINGS)
        service.recover()
        for step in parse_script(script):
            service.handle(step.observation)
    return path, load_public_key(tmp_path / "table.key.pub")


def test_the_key_is_created_owner_only_with_its_public_half_beside_it(tmp_path):
    key = tmp_path / "keys" / "table.key"
    signer = load_or_create_signer(key)
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    assert (tmp_path / "keys" / "table.key.pub").read_text() == f"ed25519 {signer.key}\n"
    assert load_or_create_signer(key).key == signer.key  # the same key the next start
    assert load_public_key(key).public_bytes_raw().hex() == signer.key


@pytest.mark.parametrize("content, mode, expected", [
    (b"not a key", 0o600, "not an unencrypted PEM private key"),
    (None, 0o644, "readable by others"),
])
def test_a_bad_or_exposed_key_is_refused_naming_the_file(tmp_path, content, mode, expected):
    key = tmp_path / "table.key"
    if content is None:
        load_or_create_signer(key)
    else:
        key.write_bytes(content)
    os.chmod(key, mode)
    with pytest.raises(JournalKeyError, match=expected) as caught:
        load_or_create_signer(key)
    assert str(key) in str(caught.value)


def test_every_write_signs_the_head_and_verify_with_the_key_accepts_it(tmp_path):
    path, public = signed_deal(tmp_path)
    with Journal(str(path), create=False) as journal:
        heads = journal.signatures()
        last = journal.last_seq
    assert heads[-1].seq == last and len(heads) > 3
    verdict = verify(str(path), key=public)
    assert verdict.ok, verdict.message
    assert f"every signature by the trusted key, up to record {last}" in verdict.message


def test_a_card_changed_and_the_chain_recomputed_fails_with_the_key(tmp_path):
    """Issue 12: 9H changed to 9D and the SHA-256 chain recomputed passed `verify`."""
    path, public = signed_deal(tmp_path, "AS 2C 9H 3D 4H 5D")
    with sqlite3.connect(path) as db:  # the card and its events: the replay agrees
        (seq,) = db.execute("SELECT min(seq) FROM records WHERE body LIKE '%9H%'").fetchone()
        db.execute("UPDATE records SET body = replace(body, '9H', '9D')")
    rehash_from(path, seq)
    verdict = verify(str(path), key=public)
    assert not verdict.ok
    assert f"the signed head of record {seq} names a hash the journal does not hold" in (
        verdict.message)
    with sqlite3.connect(path) as db:  # ... and the forger throws the signatures away
        db.execute("DELETE FROM signatures")
    plain = verify(str(path))
    assert plain.ok and "not signed" in plain.message  # all the chain and the replay can tell
    assert "are not signed" in verify(str(path), key=public).message


def test_records_appended_without_the_key_are_not_signed(tmp_path):
    path, public = signed_deal(tmp_path)
    with Journal(str(path)) as journal:  # a forger's writer: no key
        journal.append("link", {"boot_id": 1, "card_counter": 0})
        last = journal.last_seq
    assert verify(str(path)).ok  # without a key, nothing shows it
    verdict = verify(str(path), key=public)
    assert not verdict.ok and f"record {last} is not signed" in verdict.message


def test_signatures_removed_or_made_by_another_key_fail(tmp_path):
    path, public = signed_deal(tmp_path)
    other = load_or_create_signer(tmp_path / "other.key")
    with Journal(str(path), signer=other) as journal:
        journal.append("link", {"boot_id": 1, "card_counter": 0})
    verdict = verify(str(path), key=public)
    assert not verdict.ok and "not the trusted key" in verdict.message
    with sqlite3.connect(path) as db:
        db.execute("DELETE FROM signatures")
    verdict = verify(str(path), key=public)
    assert not verdict.ok and "are not signed" in verdict.message


def test_a_journal_cut_short_passes_alone_and_fails_against_its_anchor(tmp_path):
    """Issue 12: deleting the newest records was accepted ("not written yet")."""
    path, public = signed_deal(tmp_path)
    anchor = latest_anchor(str(path))
    heads = [h.seq for h in Journal(str(path), create=False).signatures()]
    with sqlite3.connect(path) as db:  # back to an earlier signed head: consistent in itself
        db.execute("DELETE FROM records WHERE seq > ?", (heads[-3],))
        db.execute("DELETE FROM signatures WHERE seq > ?", (heads[-3],))
    assert verify(str(path), key=public).ok
    verdict = verify(str(path), key=public, anchor=anchor)
    assert not verdict.ok
    assert f"ends at record {heads[-3]}, but the anchor names record {anchor.seq}" in (
        verdict.message)


def test_a_forged_or_foreign_anchor_is_refused(tmp_path):
    path, public = signed_deal(tmp_path)
    anchor = latest_anchor(str(path))
    forged = Anchor(anchor.seq, anchor.hash, anchor.key, "00" * 64)
    assert "anchor's signature is not valid" in verify(str(path), anchor=forged).message
    other = load_or_create_signer(tmp_path / "other.key").sign(anchor.seq, anchor.hash)
    assert "not the trusted key" in verify(str(path), key=public, anchor=other).message


def test_verify_prints_an_anchor_and_checks_a_journal_against_it(tmp_path, capsys):
    path, _ = signed_deal(tmp_path)
    assert main(["verify", str(path), "--print-anchor"]) == 0
    line = capsys.readouterr().out.strip()
    printed = json.loads(line)
    # The signed head, labelled with the journal's name (an auditor files many anchors).
    with Journal(str(path), create=False) as journal:
        name = journal.identity()
    assert printed == {**json.loads(latest_anchor(str(path)).to_json()), "journal": name}
    anchor_file = tmp_path / "anchor.json"
    anchor_file.write_text(line + "\n")
    pub = str(tmp_path / "table.key.pub")
    assert main(["verify", str(path), "--key", pub, "--anchor", str(anchor_file)]) == 0
    assert "matches the anchor" in capsys.readouterr().out
    heads = [h.seq for h in Journal(str(path), create=False).signatures()]
    with sqlite3.connect(path) as db:  # the last write undone, its signature too
        db.execute("DELETE FROM records WHERE seq > ?", (heads[-2],))
        db.execute("DELETE FROM signatures WHERE seq > ?", (heads[-2],))
    assert main(["verify", str(path), "--anchor", str(anchor_file)]) == 1
    assert "records were cut off" in capsys.readouterr().out


@pytest.mark.parametrize("option, content, expected", [
    ("--anchor", "{}", "an anchor is a JSON object with exactly seq, hash, key, signature"),
    ("--anchor", "not json", "not an anchor"),
    ("--key", "ed25519 12ab", "not an Ed25519 public key"),
    ("--key", "", "not a journal key: a public key file (KEY.pub) holds one line"),
    ("--key", "shoe8 AS KD", "not a journal key: a public key file (KEY.pub) holds one line"),
    ("--key", "-----BEGIN PRIVATE KEY-----\nxx\n", "not an unencrypted PEM private key"),
])
def test_a_bad_key_or_anchor_file_is_a_clear_error(tmp_path, capsys, option, content, expected):
    path, _ = signed_deal(tmp_path)
    bad = tmp_path / "bad"
    bad.write_text(content)
    assert main(["verify", str(path), option, str(bad)]) == 2
    err = capsys.readouterr().err
    assert expected in err and str(bad) in err and "Traceback" not in err


def test_an_unsigned_journal_says_so_and_has_no_anchor(tmp_path, capsys):
    path = tmp_path / "plain.db"
    with Journal(str(path)) as journal:
        TableService(journal, SETTINGS).recover()
    assert main(["verify", str(path)]) == 0
    assert "not signed" in capsys.readouterr().out
    assert main(["verify", str(path), "--print-anchor"]) == 2  # asked for, not altered
    assert "not signed, so there is no anchor to print" in capsys.readouterr().err


def test_the_public_key_as_openssl_writes_it_is_a_key_too(tmp_path, capsys):
    from cryptography.hazmat.primitives import serialization  # noqa: PLC0415

    path, public = signed_deal(tmp_path)
    pem = tmp_path / "table.pem"
    pem.write_bytes(load_public_key(tmp_path / "table.key.pub").public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo))
    assert main(["verify", str(path), "--key", str(pem)]) == 0
    assert "every signature by the trusted key" in capsys.readouterr().out


def test_an_anchor_of_another_journal_is_said_to_be_possibly_that(tmp_path, capsys):
    """Not only "rewritten": an unsigned journal holds nothing the anchor's key signed."""
    path, _ = signed_deal(tmp_path)
    anchor_file = tmp_path / "anchor.json"
    assert main(["verify", str(path), "--print-anchor"]) == 0
    printed = json.loads(capsys.readouterr().out)
    other = tmp_path / "other.db"
    with Journal(str(other)) as journal:
        TableService(journal, SETTINGS).recover()
        other_name = journal.identity()
    anchor_file.write_text(json.dumps(printed))
    assert main(["verify", str(other), "--anchor", str(anchor_file)]) == 1
    assert (f"the anchor is of journal {printed['journal']}, not of this one ({other_name})"
            in capsys.readouterr().out)
    # Unlabelled (an anchor of before stop 48), it is told by its key and record.
    del printed["journal"]
    anchor_file.write_text(json.dumps(printed))
    assert main(["verify", str(other), "--anchor", str(anchor_file)]) == 1
    out = capsys.readouterr().out
    assert "the anchor is of another journal, or this one was cut short" in out


def test_a_report_checked_against_the_tables_key_is_green_and_a_private_key_is_noted(
        tmp_path, capsys):
    """An auditor's trial (stop 47): the report was green for any intact chain, a journal
    re-chained whole by anyone included, and took no --key or --anchor."""
    path = tmp_path / "signed.db"
    signer = load_or_create_signer(tmp_path / "t.key")
    with Journal(str(path), signer=signer) as journal:
        service = TableService(journal, SETTINGS)
        service.recover()
        for step in parse_script("AS 2C 9H 8D 9C 8S"):
            service.handle(step.observation)
    page = tmp_path / "r.html"
    assert main(["report", str(path), "--html", str(page)]) == 0
    assert "not proven: " in page.read_text() and "#e65100" in page.read_text()
    assert main(["report", str(path), "--html", str(page), "--key",
                 str(tmp_path / "t.key.pub")]) == 0
    assert "verified: " in page.read_text() and "#2e7d32" in page.read_text()
    assert main(["verify", str(path), "--key", str(tmp_path / "t.key")]) == 0
    assert "is the table's private key: checking needs only its public key" in (
        capsys.readouterr().err)


@pytest.mark.parametrize("anchor, words", [
    ({"seq": "x", "hash": "ab", "key": "cd", "signature": "ef"}, "its seq is 'x', not a whole"),
    ({"seq": 1, "hash": "ab", "key": "cd"}, "no signature"),
    ({"seq": 1, "hash": "ab", "key": "cd", "signature": "ef", "tables": "t"}, "tables too"),
])
def test_an_anchor_names_the_field_that_is_wrong(tmp_path, capsys, anchor, words):
    path = tmp_path / "plain.db"
    with Journal(str(path)) as journal:
        TableService(journal, SETTINGS).recover()
    file = tmp_path / "a.anchor"
    file.write_text(json.dumps(anchor))
    assert main(["verify", str(path), "--anchor", str(file)]) == 2
    assert words in capsys.readouterr().err


def test_an_anchor_labelled_with_another_journal_fails_naming_both(tmp_path, capsys):
    """The label is not signed, but a journal's name is the start of its first record's
    hash: an anchor of another journal (or of this one before it was rewritten whole) can
    only fail, and now says which."""
    path, _ = signed_deal(tmp_path)
    assert main(["verify", str(path), "--print-anchor"]) == 0
    printed = json.loads(capsys.readouterr().out)
    anchor_file = tmp_path / "anchor.json"
    anchor_file.write_text(json.dumps({**printed, "journal": "0123456789abcdef",
                                       "table": "t7"}))
    assert main(["verify", str(path), "--anchor", str(anchor_file)]) == 1
    assert (f"the anchor is of journal 0123456789abcdef (table t7), not of this one "
            f"({printed['journal']})") in capsys.readouterr().out
    # An anchor without labels (as before stop 48) is checked as it was.
    anchor_file.write_text(json.dumps({k: printed[k] for k in ("seq", "hash", "key",
                                                               "signature")}))
    assert main(["verify", str(path), "--anchor", str(anchor_file)]) == 0
    # A label that is not one is named.
    anchor_file.write_text(json.dumps({**printed, "table": "t1\x1b[2J"}))
    assert main(["verify", str(path), "--anchor", str(anchor_file)]) == 2
    assert "its table is 't1\\x1b[2J', not a table id" in capsys.readouterr().err
