import threading

import pytest

from controller.game import observations as obs
from controller.journal.store import Journal
from controller.service.pipeline import Pipeline
from controller.service.table_service import TableService

SETTINGS = {"decks": 8, "style": "A", "require_no_more_bets": False}


class RecordingLamps:
    def __init__(self):
        self.shown = []

    def show(self, lit):
        self.shown.append(lit)


def test_observations_from_many_threads_are_handled_in_submission_order(tmp_path):
    with Journal(str(tmp_path / "j.db")) as journal:
        lamps = RecordingLamps()
        service = TableService(journal, SETTINGS, lamps=lamps)
        service.recover()
        handled = []
        pipeline = Pipeline(service, on_handled=handled.append).start()
        lock = threading.Lock()
        cards = "AS 2C 2H 3D 4H 5D".split()

        def driver(code):
            with lock:  # the order of submission is the order of the cards
                return pipeline.submit(obs.Card(code), evidence_at=0.0)

        tickets = [driver(code) for code in cards]
        assert pipeline.wait_for(tickets[-1])
        pipeline.stop()
        assert [h.observation.card for h in handled] == cards
        assert handled[-1].changed_lamps and handled[-1].latency >= 0
        assert lamps.shown[-1] == {"player_stand", "banker_stand", "banker_win"}
        assert pipeline.error is None


def test_a_failing_service_is_reported_to_waiters(tmp_path):
    class Broken:
        def handle(self, observation, notes=()):
            raise RuntimeError("disk full")

    pipeline = Pipeline(Broken()).start()
    ticket = pipeline.submit(obs.Cut())
    assert pipeline.wait_for(ticket, timeout=5)
    assert str(pipeline.error) == "disk full"


def test_submissions_from_many_threads_are_each_handled_once(tmp_path):
    with Journal(str(tmp_path / "j.db")) as journal:
        service = TableService(journal, SETTINGS)
        service.recover()
        handled = []
        pipeline = Pipeline(service, on_handled=handled.append).start()
        barrier = threading.Barrier(4)

        def press(times):
            barrier.wait()
            for _ in range(times):
                pipeline.submit(obs.NoMoreBets())

        threads = [threading.Thread(target=press, args=(25,)) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert pipeline.wait_for(100)
        pipeline.stop()
        assert len(handled) == 100 and pipeline.error is None
        observations = [r for r in journal.records() if r.kind == "observation"]
        assert len(observations) == 100


def test_link_records_are_written_by_the_table_thread_in_queue_order(tmp_path):
    """Issue 9: one journal writer. The link's card counter is queued from the serial thread
    and journaled by the table thread, between the observations it came between."""
    writers = set()

    class Watched(Journal):
        def append_many(self, items):
            writers.add(threading.current_thread().name)
            return super().append_many(items)

    with Watched(str(tmp_path / "j.db")) as journal:
        service = TableService(journal, SETTINGS)
        service.recover()
        writers.clear()
        pipeline = Pipeline(service).start()
        pipeline.submit(obs.Card("AS"))
        serial = threading.Thread(target=pipeline.record, name="serial",
                                  args=("link", {"boot_id": 7, "card_counter": 1}))
        serial.start()
        serial.join()
        ticket = pipeline.submit(obs.Card("2C"))
        assert pipeline.wait_for(ticket)
        pipeline.stop()
        kinds = [(r.kind, r.body.get("card")) for r in journal.records()
                 if r.kind in ("observation", "link")]
    assert kinds == [("observation", "AS"), ("link", None), ("observation", "2C")]
    assert writers == {"table"}


def test_two_threads_appending_at_once_is_refused_not_interleaved(tmp_path):
    with Journal(str(tmp_path / "j.db")) as journal:
        journal._writing.acquire()  # another thread is in the middle of an append
        try:
            with pytest.raises(RuntimeError, match="two threads appended"):
                journal.append("meta", {})
        finally:
            journal._writing.release()
        assert journal.append("meta", {}).seq == 1


def test_one_durable_commit_between_an_observation_and_its_lamps(tmp_path):
    """Issue 9: the observation is durable before its lamps; its events are journaled after
    them (recovery completes them after a crash), so the dealer waits for one commit."""
    with Journal(str(tmp_path / "j.db")) as journal:
        at_lamps = []  # journal commits when the lamps were written

        class Lamps:
            def show(self, lit):
                at_lamps.append(journal.commits)

        service = TableService(journal, SETTINGS, lamps=Lamps())
        service.recover()
        done = []  # (commits when the observation was done, did it change the lamps)
        pipeline = Pipeline(service, on_handled=lambda h: done.append(
            (journal.commits, h.changed_lamps, h.lamps_at, h.done_at, bool(h.events)))).start()
        before = journal.commits
        for code in "AS 2C 2H 3D 4H 5D".split():
            ticket = pipeline.submit(obs.Card(code), evidence_at=0.0)
        assert pipeline.wait_for(ticket)
        pipeline.stop()
    previous = [before] + [commits for commits, *_ in done[:-1]]
    lamp_writes = iter(at_lamps[1:])  # the first is recover()'s
    for (commits, changed, lamps_at, done_at, events), prior in zip(done, previous,
                                                                    strict=True):
        assert commits == prior + 1 + events  # the observation, then its events if any
        if changed:
            assert next(lamp_writes) == prior + 1  # after the observation, before events
            assert lamps_at <= done_at
    assert any(changed for _, changed, *_ in done)
