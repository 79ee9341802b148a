import sqlite3
from datetime import UTC, datetime

from controller.cli import main
from controller.game.script import parse_script
from controller.journal.store import Journal
from controller.service.table_service import TableService

SETTINGS = {"decks": 8, "style": "A", "require_no_more_bets": True}


def test_report_shows_rounds_roads_irregularities_and_faults(tmp_path, capsys):
    path = tmp_path / "j.db"
    with Journal(str(path)) as journal:
        service = TableService(journal, SETTINGS)
        service.recover()
        script = "AS 2C NMB 2H 3D 4H 5D 9S DISCLOSED KH KD 7S JOKER ACK NMB CUT 2C 3C 4C 5C"
        for step in parse_script(script):
            service.handle(step.observation)
    out = tmp_path / "report.html"
    assert main(["report", str(path), "--html", str(out)]) == 0
    page = out.read_text()
    assert page.startswith("<!doctype html>")
    assert "<td>2H 4H</td>" in page
    assert "rule 12.1(b)" in page
    assert "FAULT: a joker left the shoe" in page
    assert "Last coup announced: round 3 (rule 9.8)" in page
    # When the cutting card came out, not only the announcement (an officer's trial).
    assert "round 3: cutting card drawn (rule 9.8)</li>" in page
    assert page.count("class=\"cell\"") == 2  # two scored rounds on the bead plate
    # The void hand among the rounds, as the shoe's end counts them.
    assert "<span>3 rounds</span>" in page and "1 void" in page


def test_report_of_missing_journal_is_a_clear_error(tmp_path, capsys):
    assert main(["report", str(tmp_path / "none.db"), "--html", str(tmp_path / "r.html")]) == 2
    assert "no such journal" in capsys.readouterr().err


def test_report_marks_the_pairs_on_the_big_road_and_counts_them(tmp_path):
    """The report said it drew the same roads as the monitor, but had no pair marks."""
    path = tmp_path / "j.db"
    with Journal(str(path)) as journal:
        service = TableService(journal, SETTINGS)
        service.recover()
        for step in parse_script("AS 2C NMB 2H 3D 2S 5D NMB 4H 6D 9S 7D"):  # 2H 2S: a pair
            service.handle(step.observation)
    out = tmp_path / "report.html"
    assert main(["report", str(path), "--html", str(out)]) == 0
    page = out.read_text()
    assert page.count('<span class="pp" title="player pair"></span>') == 1
    assert page.count('class="bp"') == 0
    assert "player pairs 1" in page and "banker pairs 0" in page


def one_round(path):
    """A journal of one round dealt."""
    with Journal(str(path)) as journal:
        service = TableService(journal, SETTINGS)
        service.recover()
        for step in parse_script("AS 2C NMB 9H 8D 9C 8S"):
            service.handle(step.observation)
    return path


def test_report_never_writes_over_the_journal_or_another_file(tmp_path, capsys):
    """An auditor's trial (stop 47): `--html` naming the journal itself overwrote the
    evidence with the page, exit 0."""
    path = one_round(tmp_path / "j.db")
    before = path.read_bytes()
    other = tmp_path / "other.db"
    other.write_bytes(before)
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\n")
    page_of_mine = tmp_path / "mine.html"
    page_of_mine.write_text("<html><body>an auditor's notes</body></html>")
    for out, words in ((path, "that is the journal itself"), (other, "an SQLite file"),
                       (notes, "exists and is not a Sabot report"),
                       (page_of_mine, "exists and is not a Sabot report"),
                       (tmp_path / "j.db.lock", "a journal's own file"),
                       (tmp_path, "a directory")):
        assert main(["report", str(path), "--html", str(out)]) == 2
        assert words in capsys.readouterr().err
    assert path.read_bytes() == before and other.read_bytes() == before
    assert notes.read_text() == "my notes\n"
    page = tmp_path / "r.html"
    assert main(["report", str(path), "--html", str(page)]) == 0
    assert main(["report", str(path), "--html", str(page)]) == 0  # a report is replaced
    assert main(["report", str(path), "--html", "/dev/null"]) == 0  # not read: it would wait
    empty = tmp_path / "empty.html"
    empty.write_bytes(b"")
    assert main(["report", str(path), "--html", str(empty)]) == 0


def test_a_journal_that_fails_verification_still_gets_its_red_report(tmp_path, capsys):
    """A review (stop 47): a record that is no JSON object stopped the report itself, where
    the red report is what an auditor needs."""
    path = one_round(tmp_path / "j.db")
    with sqlite3.connect(path) as db:
        db.execute("UPDATE records SET body = '[1, 2]' WHERE seq = 5")
    page = tmp_path / "r.html"
    assert main(["report", str(path), "--html", str(page)]) == 0
    text = page.read_text()
    assert "FAILS VERIFICATION: record 5" in text
    assert "The report stops there: record 5 is not a JSON object" in text


def test_each_round_is_listed_with_its_time_and_journal_record(tmp_path):
    """An auditor's trial (stop 47): a dispute names a time or a record, and the rounds
    listed had neither."""
    path = one_round(tmp_path / "j.db")
    with Journal(str(path), create=False) as journal:
        rounds = [r for r in journal.records()
                  if r.kind == "event" and r.body["event"] == "round"]
    page = tmp_path / "r.html"
    assert main(["report", str(path), "--html", str(page)]) == 0
    (round_record,) = rounds
    when = datetime.fromtimestamp(round_record.ts_us / 1e6, UTC).strftime("%H:%M:%S")
    assert "<th>time (UTC)</th><th>record</th>" in page.read_text()
    assert f"<td>1</td><td>{when}</td><td>{round_record.seq}</td>" in page.read_text()
