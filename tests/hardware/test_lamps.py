import pytest

from hardware.errors import (
    HardwareConfigError,
    HardwareError,
    LampConflictError,
    NameConfigError,
    PinConfigError,
)
from hardware.fake_pins import FakePins, PinWrite
from hardware.lamps import LAMP_NAMES, Lamps, parse_lamp_config

CONFIG = {
    "player_draw": 17, "player_stand": 27, "banker_draw": 22, "banker_stand": 10,
    "tie": {"pin": 9, "active_low": True}, "fault": 4,
}  # fmt: skip


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


@pytest.fixture
def pins():
    return FakePins(clock=Clock())


def test_lamps_start_in_the_fail_safe_state(pins):
    lamps = Lamps(CONFIG, pins)
    assert lamps.lit == {"fault"}
    assert pins.outputs == {17: False, 27: False, 22: False, 10: False, 9: True, 4: True}


def test_show_sets_every_pin_in_one_timestamped_write_honouring_polarity(pins):
    lamps = Lamps(CONFIG, pins)
    pins.clock.now = 101.5
    lamps.show({"player_draw", "banker_stand", "tie"})
    assert pins.writes[-1] == PinWrite(
        101.5, ((4, False), (9, False), (10, True), (17, True), (22, False), (27, False))
    )
    assert lamps.lit == {"player_draw", "banker_stand", "tie"}


def test_lamps_not_wired_on_this_shoe_are_skipped(pins):
    lamps = Lamps(CONFIG, pins)
    lamps.show({"shuffle", "last_coup"})
    assert lamps.lit == frozenset()
    assert not any(pins.outputs[p] for p in (17, 27, 22, 10, 4)) and pins.outputs[9] is True


def test_draw_and_stand_of_one_hand_are_never_lit_together(pins):
    lamps = Lamps(CONFIG, pins)
    before = list(pins.writes)
    with pytest.raises(LampConflictError, match="player_draw and player_stand"):
        lamps.show({"player_draw", "player_stand"})
    assert pins.writes == before


def test_fail_safe_darkens_draw_and_stand_lights_fault_keeps_the_rest(pins):
    lamps = Lamps(CONFIG, pins)
    lamps.show({"player_draw", "banker_stand", "tie"})
    lamps.fail_safe("test")
    assert lamps.lit == {"fault", "tie"}
    assert pins.outputs[17] is False and pins.outputs[10] is False and pins.outputs[4] is True


def test_close_goes_fail_safe_then_releases_and_nothing_lights_afterwards(pins):
    lamps = Lamps(CONFIG, pins)
    lamps.show({"banker_draw"})
    lamps.close()
    assert pins.closed and lamps.lit == {"fault"}
    writes = len(pins.writes)
    lamps.show({"banker_draw"})
    assert len(pins.writes) == writes


@pytest.mark.parametrize(
    ("config", "error", "named"),
    [
        ({"fault": 4, "player_drawz": 5}, NameConfigError, "lamps.player_drawz"),
        ({"player_draw": 5}, NameConfigError, "lamps.fault"),
        ({"fault": 4, "tie": 4}, PinConfigError, "BCM pin 4"),
        ({"fault": 28}, PinConfigError, "lamps.fault: BCM pin 28 is out of range"),
        ({"fault": 1}, PinConfigError, "out of range 2-27"),
        ({"fault": "4"}, PinConfigError, "'4'"),
        ({"fault": True}, PinConfigError, "True"),
        ({"fault": {"pin": 4, "active_low": "yes"}}, PinConfigError, "lamps.fault.active_low"),
        ({"fault": {"pin": 4, "colour": "red"}}, HardwareConfigError, "'colour'"),
        ({"fault": {"active_low": True}}, PinConfigError, "missing 'pin'"),
    ],
)
def test_config_errors_are_clear_name_the_culprit_and_exit_2(config, error, named):
    with pytest.raises(error) as caught:
        parse_lamp_config(config)
    assert named in str(caught.value)
    assert isinstance(caught.value, HardwareError) and isinstance(caught.value, ValueError)
    from controller.cli import exit_status_of
    assert exit_status_of(caught.value) == 2  # the CLI's choice for a config mistake


def test_unknown_lamp_name_in_show_is_an_error(pins):
    with pytest.raises(NameConfigError, match="'disco'"):
        Lamps(CONFIG, pins).show({"disco"})


def test_lamp_names_match_the_serial_protocol_bit_order():
    from firmware_bridge.messages import LAMPS_ORDER

    assert LAMPS_ORDER == LAMP_NAMES
