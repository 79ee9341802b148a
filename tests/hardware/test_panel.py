import pytest

from hardware.errors import HardwareConfigError, PinConfigError
from hardware.fake_pins import FakePins
from hardware.panel import open_panel

CONFIG = {
    "backend": "fake",
    "debounce_ms": 20,
    "lamps": {"player_draw": 17, "banker_draw": 22, "fault": 4},
    "buttons": {"no_more_bets": 23, "new_shoe": 16},
}


def test_panel_wires_lamps_and_buttons_on_one_fake_backend():
    pressed = []
    panel = open_panel(CONFIG, on_press=pressed.append)
    assert isinstance(panel.backend, FakePins)
    panel.lamps.show({"player_draw"})
    panel.backend.set_input(16, False)
    assert [e.name for e in pressed] == ["new_shoe"]
    assert panel.buttons.debounce == 0.02
    panel.close()
    assert panel.backend.closed and panel.backend.outputs == {17: False, 22: False, 4: True}


@pytest.mark.parametrize(
    ("change", "error", "named"),
    [
        ({"buttons": {"no_more_bets": 17}}, PinConfigError, "'lamps.player_draw' and 'buttons"),
        ({"lamp": {}}, HardwareConfigError, "gpio.lamp: unknown key"),
        ({"backend": "pigpio"}, HardwareConfigError, "'pigpio'"),
        ({"debounce_ms": "30"}, HardwareConfigError, "gpio.debounce_ms"),
        ({"buttons": [23]}, HardwareConfigError, "gpio.buttons must be a table"),
    ],
)
def test_panel_config_errors_stop_before_any_pin_is_touched(change, error, named):
    backend = FakePins()
    with pytest.raises(error, match=named):
        open_panel({**CONFIG, **change}, backend=backend if "backend" not in change else None)
    assert backend.writes == [] and backend.pulls == {}
