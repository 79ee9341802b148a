"""The monitor's pages in a real browser (issue 10): Debian's chromium driven by Playwright
(never a downloaded browser). The room page shows the tables and updates without a reload
when a round is published; the table page draws the five roads; markup in a message is shown
as text. Screenshots go to the test's folder."""

from __future__ import annotations

import json
import shutil

import pytest

from controller.game.script import parse_script
from controller.game.shoe import dealt_until_shoe_end, shuffled_shoe
from controller.surveillance.broker import MemoryBroker
from tests.surveillance.monitor_rig import MonitorServer, Table

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]


@pytest.fixture
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield launched
        launched.close()


def test_room_and_table_pages(tmp_path, browser):
    broker = MemoryBroker()
    monitor = MonitorServer(broker.client("monitor"), tmp_path / "m.sqlite")
    one = Table(tmp_path, "table-1", broker.client("table-1"), decks=8)
    two = Table(tmp_path, "table-2", broker.client("table-2"))
    shoe = dealt_until_shoe_end(shuffled_shoe(8, seed=21), 8)[:212]  # some 40 rounds
    try:
        one.deal(shoe[:-12])
        two.deal(dealt_until_shoe_end(shuffled_shoe(1, seed=5), 1)[:20])
        one.flush(), two.flush()
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(monitor.url + "/")
        page.wait_for_selector(".tile[data-table='table-2']")
        assert page.locator(".tile").count() == 2
        page.wait_for_selector("#live.on")  # the live stream is connected
        tile = ".tile[data-table='table-1']"
        rounds = int(page.locator(tile).get_attribute("data-rounds"))
        text = page.locator(tile).inner_text()
        assert "(round)" not in text and "_" not in text.split("lamps:")[1].split("\n")[0]
        page.screenshot(path=str(tmp_path / "room.png"), full_page=True)

        # A round published while the page is open shows up without a reload.
        rounds_before = sum(e["event"] == "round" for e in one.events())
        for observation in shoe[-12:]:
            one.deal([observation])
            if sum(e["event"] == "round" for e in one.events()) > rounds_before:
                break
        one.flush()
        page.wait_for_function(
            "n => Number(document.querySelector(\".tile[data-table='table-1']\")"
            ".dataset.rounds) === n + 1", arg=rounds, timeout=10_000)

        # Markup in a message is text on the page, never markup.
        intruder = broker.client("intruder")
        intruder.start()
        intruder.publish("sabot/table-2/event", json.dumps({
            "table": "table-2", "seq": 10**5, "ts": 1.0, "event": "fault",
            "reason": "<img src=x onerror=\"window.pwned=1\">", "round": 1}).encode())
        page.wait_for_selector(".tile[data-table='table-2'] .alert")
        assert "<img src=x" in page.locator(".tile[data-table='table-2'] .alert").inner_text()
        assert page.evaluate("window.pwned") is None
        assert page.locator(".tile img").count() == 0

        page.goto(monitor.url + "/tables/table-1")
        page.wait_for_selector("#big_road .cell .ring")
        for board in ("bead_plate", "big_road", "big_eye_boy", "small_road", "cockroach_pig"):
            assert page.locator(f"#{board} .cell").count() >= 6, board
        for board in ("big_eye_boy", "small_road", "cockroach_pig"):
            assert page.locator(f"#{board} .cell span").count() >= 5, board  # marks drawn
        assert page.locator("#ask tr").count() == 3
        assert page.locator("#lamps .lamp").count() == 11
        # An unsigned journal has no anchor link: nothing beside its line (it read "null").
        assert page.locator("#journal").inner_text().strip() == "journal not signed"
        page.screenshot(path=str(tmp_path / "table.png"), full_page=True)
        assert errors == []
    finally:
        one.close(), two.close()
        monitor.close()
    assert (tmp_path / "room.png").stat().st_size > 10_000
    assert (tmp_path / "table.png").stat().st_size > 10_000


def test_scripted_table_page_shows_hands_and_faults(tmp_path, browser):
    broker = MemoryBroker()
    monitor = MonitorServer(broker.client("monitor"), tmp_path / "m.sqlite")
    one = Table(tmp_path, "t1", broker.client("t1"))
    try:
        one.deal([s.observation for s in parse_script("AS 2C 9H 8D JOKER")])
        one.flush()
        page = browser.new_page()
        page.goto(monitor.url + "/tables/t1")
        page.wait_for_selector("#faults .alert")
        assert page.locator("#player .card").all_inner_texts() == ["9H"]
        assert page.locator("#banker .card").all_inner_texts() == ["8D"]
        assert "fault" in page.locator("#lamps .lamp.lit").all_inner_texts()
        assert page.locator("#notes li.alert").inner_text().split(": ", 1)[1].startswith(
            "FAULT: ")
        one.deal([s.observation for s in parse_script("ACK")])
        one.flush()
        # Acknowledged, the fault stays in the list, no longer in red.
        page.wait_for_selector("#notes li.warn")
        assert "fault, acknowledged at " in page.locator("#notes li.warn").inner_text()
        assert page.locator("#notes li.alert").count() == 0
        assert page.locator("#faults .alert").count() == 0
    finally:
        one.close()
        monitor.close()


def test_the_table_page_says_which_shoe_and_when_its_counts_are_the_tables_own(tmp_path,
                                                                              browser):
    """An officer's trial: an ended shoe was labelled "in play", the statistics did not say
    which shoe they were of, and a monitor started after the shoe began showed 0 rounds
    beside the table's cards left, with nothing said."""
    broker = MemoryBroker()
    monitor = MonitorServer(broker.client("monitor"), tmp_path / "m.sqlite")
    one = Table(tmp_path, "t1", broker.client("t1"))
    late = None
    try:
        one.deal(dealt_until_shoe_end(shuffled_shoe(1, seed=5), 1))  # to the end of the shoe
        one.flush()
        page = browser.new_page()
        page.goto(monitor.url + "/tables/t1")
        # Playwright's expect polls from Python: a polled string would be evaluated in the
        # page, which its Content-Security-Policy forbids.
        from playwright.sync_api import expect  # noqa: PLC0415 - as the fixture imports it

        expect(page.locator("#roads-title")).to_contain_text("(ended)")
        assert page.locator("#stats-title").inner_text() == "Shoe statistics, shoe 1 (ended)"
        assert page.locator("#shoes button").all_inner_texts() == ["latest"]
        assert page.locator("#partial").inner_text() == ""
        late = MonitorServer(broker.client("late"), tmp_path / "late.sqlite")
        assert late.wait_for(lambda: late.get("/api/tables") != [])
        page.goto(late.url + "/tables/t1")
        expect(page.locator("#partial")).to_contain_text("started after")
        assert "started after the shoe began" in page.locator("#partial").inner_text()
        rounds = sum(e["event"] == "round" and not e["void"] for e in one.events())
        assert page.locator("#bead_plate .cell span").count() == rounds
    finally:
        one.close()
        monitor.close()
        if late is not None:
            late.close()


def test_a_table_restarted_with_a_new_journal_shows_it_and_keeps_the_old_shoe(tmp_path,
                                                                             browser):
    """The room says the journal was replaced and where the old one ended; the table page
    lists the old journal's shoe beside the new one's (both shoe 1) and shows either."""
    broker = MemoryBroker()
    monitor = MonitorServer(broker.client("monitor"), tmp_path / "m.sqlite")
    (tmp_path / "before").mkdir()
    (tmp_path / "after").mkdir()
    old = Table(tmp_path / "before", "t1", broker.client("t1"))
    new = None
    try:
        old.deal([s.observation for s in parse_script(
            "AS 2C 9H 8D 9C 8S 3H 4D 5C 6S 7H KD 2H")])
        old.flush()
        old.close()
        new = Table(tmp_path / "after", "t1", broker.client("t1"))
        new.deal([s.observation for s in parse_script("AS 2C 9H 8D 9C 8S")])
        new.flush()
        errors: list[str] = []
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(monitor.url + "/")
        page.wait_for_selector(".tile .replaced")
        assert "the one before ended at record" in page.locator(".tile .replaced").inner_text()
        page.screenshot(path=str(tmp_path / "room.png"), full_page=True)
        page.goto(monitor.url + "/tables/t1")
        page.wait_for_selector("#shoes button")
        cells = page.locator("#shoes tr td:first-child").all_inner_texts()
        assert cells == ["1 (earlier journal)", "1"]
        assert page.locator("#bead_plate .cell span").count() == 1  # the new shoe's round
        page.locator("#shoes button", has_text="show").click()
        from playwright.sync_api import expect  # noqa: PLC0415 - as the fixture imports it

        expect(page.locator("#bead_plate .cell span")).to_have_count(2)  # the old shoe's
        assert page.locator("#shoes tr.current td:first-child").inner_text() == (
            "1 (earlier journal)")
        assert page.locator("#roads-title").inner_text() == (
            "Roads, shoe 1 of the earlier journal")
        page.screenshot(path=str(tmp_path / "table.png"), full_page=True)
        assert errors == []
    finally:
        if new is not None:
            new.close()
        monitor.close()


def test_the_header_says_when_the_monitors_broker_is_away(tmp_path, browser):
    """A surveillance officer's trial (stop 46): with the broker gone every tile went
    offline while the header still said "live"."""
    from playwright.sync_api import expect  # noqa: PLC0415 - as the fixture imports it

    broker = MemoryBroker()
    monitor = MonitorServer(broker.client("monitor"), tmp_path / "m.sqlite")
    one = Table(tmp_path, "t1", broker.client("t1"))
    try:
        one.deal(dealt_until_shoe_end(shuffled_shoe(1, seed=5), 1)[:10])
        one.flush()
        page = browser.new_page(viewport={"width": 1280, "height": 400})
        page.goto(monitor.url + "/")
        page.wait_for_selector("#live.on")
        assert monitor.get("/api/monitor")["broker"]["connected"] is True
        broker.go_down()
        expect(page.locator("#live")).to_have_class("live away")
        assert page.locator("#live").inner_text().startswith("broker away since ")
        assert monitor.get("/api/monitor")["broker"]["connected"] is False
        page.screenshot(path=str(tmp_path / "away.png"))
        page.reload()  # a page opened while the broker is away says so from the start
        expect(page.locator("#live")).to_have_class("live away")
        broker.come_up()
        expect(page.locator("#live")).to_have_text("live")
        assert page.locator("#live").get_attribute("class") == "live on"
    finally:
        one.close()
        monitor.close()
