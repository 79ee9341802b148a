import sys

import pytest

from hardware.buttons import Buttons
from hardware.errors import BackendUnavailableError
from hardware.lamps import Lamps
from hardware.pins import open_backend

from .fake_rpi_gpio import make_module


@pytest.fixture
def gpio(mocker):
    module = make_module()
    package = mocker.MagicMock(GPIO=module)
    mocker.patch.dict(sys.modules, {"RPi": package, "RPi.GPIO": module})
    return module


def test_backend_imports_rpi_gpio_lazily_and_uses_bcm_numbering(gpio):
    backend = open_backend("rpigpio")
    assert backend.gpio is gpio and gpio.mode == gpio.BCM


def test_missing_rpi_gpio_is_a_clear_error_naming_both_packages(mocker):
    mocker.patch.dict(sys.modules, {"RPi": None, "RPi.GPIO": None})
    with pytest.raises(BackendUnavailableError) as caught:
        open_backend("rpigpio")
    assert "sabot[pi]" in str(caught.value) and "rpi-lgpio" in str(caught.value)
    from controller.cli import exit_status_of
    assert isinstance(caught.value, ImportError) and exit_status_of(caught.value) == 2


def test_off_a_pi_the_runtime_error_of_rpi_gpio_becomes_backend_unavailable(mocker):
    from hardware import rpigpio

    def import_module(name):
        assert name == "RPi.GPIO"
        raise RuntimeError("This module can only be run on a Raspberry Pi!")

    mocker.patch.object(rpigpio.importlib, "import_module", side_effect=import_module)
    with pytest.raises(BackendUnavailableError, match="only be run on a Raspberry Pi"):
        rpigpio.RPiGpioPins()


def test_lamps_on_rpigpio_set_initial_levels_and_write_all_pins_in_one_call(gpio):
    lamps = Lamps({"player_draw": 17, "tie": {"pin": 9, "active_low": True}, "fault": 4},
                  open_backend("rpigpio"))  # fmt: skip
    assert gpio.setups[4] == (gpio.OUT, gpio.PUD_OFF, gpio.HIGH)  # fault lit from the start
    assert gpio.setups[9][2] == gpio.HIGH and gpio.setups[17][2] == gpio.LOW
    lamps.show({"player_draw", "tie"})
    pins, values = gpio.output_calls[-1]
    assert dict(zip(pins, values, strict=True)) == {17: 1, 9: 0, 4: 0}
    lamps.close()
    assert gpio.levels[4] == gpio.HIGH and gpio.levels[17] == gpio.LOW
    assert gpio.cleaned == [[4, 9, 17]]


def test_buttons_on_rpigpio_use_edge_detection_with_pull_ups(gpio):
    pressed = []
    Buttons({"no_more_bets": 23}, open_backend("rpigpio"), on_press=pressed.append)
    assert gpio.setups[23] == (gpio.IN, gpio.PUD_UP, None)
    assert gpio.callbacks[23][0] == gpio.BOTH
    gpio.drive(23, gpio.LOW)
    assert [e.name for e in pressed] == ["no_more_bets"]


def test_failed_edge_detection_falls_back_to_polling_with_a_warning(mocker, caplog):
    module = make_module(edge_detection_works=False)
    mocker.patch.dict(sys.modules, {"RPi": mocker.MagicMock(GPIO=module), "RPi.GPIO": module})
    backend = open_backend("rpigpio", poll_interval=3600)  # the test polls by hand
    pressed = []
    Buttons({"acknowledge": 25}, backend, on_press=pressed.append)
    assert "Failed to add edge detection" in caplog.text and "polling" in caplog.text
    assert 25 in backend.polled
    module.levels[25] = module.LOW  # pressed, no callback: only polling can see it
    backend.poll_once()
    backend.poll_once()
    assert [e.name for e in pressed] == ["acknowledge"]
    backend.close()
    assert module.cleaned == [[25]]
