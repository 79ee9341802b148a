"""The fault campaign (`make faults`, bench/faults.py) in a few of each: the classes it can run
in seconds, so a change that loses or doubles an event under a fault fails `make test` too
(power loss has its own tests: tests/controller/test_kill9*.py)."""

from bench import faults


def test_serial_link_faults_lose_and_double_nothing():
    rows = faults.serial_link(runs=2)
    assert {row.fault for row in rows} == {
        "serial link: damage 5%", "serial link: damage 20%", "serial link: cable out",
        "serial link: host restart"}
    for row in rows:
        assert row.injected == 2 and row.survived == 2, row
        assert row.lost == row.doubled == 0, row


def test_a_broker_down_and_a_publisher_restart_lose_nothing(tmp_path):
    row = faults.broker_outages(runs=1, folder=tmp_path)
    assert row.injected >= 1 and row.survived == row.injected and row.lost == 0, row


def test_every_forgery_is_caught_with_the_key_and_an_anchor(tmp_path):
    by_level = {row.fault: row for row in faults.tampering(tmp_path)}
    strongest = by_level["tampering, checked with the key and an anchor"]
    assert strongest.injected == strongest.survived == 11, strongest.note
    keyed = by_level["tampering, checked with the table's key too"]
    # Only a journal cut back to an earlier signed head needs the anchor.
    assert keyed.survived == keyed.injected - 1 and "cut off" in keyed.note
    plain = by_level["tampering, checked by the chain and the replay"]
    assert plain.survived < keyed.survived  # what the signatures add


def test_fuzzed_inputs_crash_nothing():
    for row in faults.fuzzing(examples=60):
        assert row.injected == 60 and row.survived == 60, row


def test_the_report_has_a_row_per_fault_and_says_what_is_not_injected(tmp_path):
    rows = [faults.Row("a fault", 3, 3, 0, 0, "a note | with a bar")]
    text = faults.report(rows, 12.0, quick=True)
    assert "| a fault | 3 | 3 | 0 | 0 | a note / with a bar |" in text
    assert "Not injected by this campaign yet" in text and "a read-only journal" in text


def test_camera_faults_never_give_a_wrong_card():
    rows = faults.camera_faults(runs=2)
    assert {row.fault for row in rows} == {f"camera: {name}" for name in faults.CAMERA_FAULTS}
    for row in rows:
        assert row.injected == 2 and row.lost == row.doubled == 0, row
