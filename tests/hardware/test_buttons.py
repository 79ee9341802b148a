import pytest

from hardware.buttons import EVENTS_KEPT, ButtonEvent, Buttons
from hardware.errors import NameConfigError, PinConfigError
from hardware.fake_pins import FakePins

CONFIG = {"no_more_bets": 23, "acknowledge": {"pin": 25, "active_high": True}}


class Clock:
    now = 10.0

    def __call__(self):
        return self.now


@pytest.fixture
def rig():
    clock = Clock()
    pins = FakePins(clock=clock)
    pressed = []
    buttons = Buttons(CONFIG, pins, on_press=pressed.append, clock=clock, debounce=0.03)
    return pins, clock, buttons, pressed


def test_buttons_are_inputs_pulled_to_their_idle_level(rig):
    pins, _, _, _ = rig
    assert pins.pulls == {23: "up", 25: "down"}


def test_a_clean_press_is_delivered_once_to_the_callback_and_not_kept(rig):
    pins, clock, buttons, pressed = rig
    pins.set_input(23, False)  # active-low: pressed
    clock.now += 0.2
    pins.set_input(23, True)
    assert pressed == [ButtonEvent("no_more_bets", 10.0)]
    assert buttons.events.empty()  # issue 9: nothing grows where nobody reads


def test_without_a_callback_presses_wait_in_a_bounded_queue():
    clock = Clock()
    pins = FakePins(clock=clock)
    buttons = Buttons(CONFIG, pins, clock=clock, debounce=0.03)
    for _ in range(EVENTS_KEPT + 10):
        pins.set_input(23, False)
        clock.now += 0.2
        pins.set_input(23, True)
        clock.now += 0.2
    assert buttons.events.qsize() == EVENTS_KEPT
    assert buttons.events.get_nowait() == ButtonEvent("no_more_bets", 10.0)


def test_contact_bounce_on_press_and_release_counts_as_one_press(rig):
    pins, clock, _, pressed = rig
    for level in (True, False, True):  # the first edge, then bounce 2 ms apart
        pins.set_input(25, level)
        clock.now += 0.002
    clock.now += 0.5
    for level in (False, True, False):  # release bouncing back to pressed briefly
        pins.set_input(25, level)
        clock.now += 0.002
    assert [e.name for e in pressed] == ["acknowledge"]


def test_two_separate_presses_count_twice(rig):
    pins, clock, _, pressed = rig
    for _ in range(2):
        pins.set_input(23, False)
        clock.now += 0.1
        pins.set_input(23, True)
        clock.now += 0.1
    assert len(pressed) == 2


def test_button_config_errors_name_the_culprit():
    with pytest.raises(NameConfigError, match="buttons.panic"):
        Buttons({"panic": 5}, FakePins())
    with pytest.raises(PinConfigError, match="'lamps.fault' and 'buttons.new_shoe'"):
        Buttons({"new_shoe": 4}, FakePins(), taken={4: "lamps.fault"})
