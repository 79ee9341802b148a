"""A stand-in for the `RPi.GPIO` module (the subset the rpigpio backend uses), with state."""

import types


def make_module(*, edge_detection_works=True):
    gpio = types.ModuleType("RPi.GPIO")
    gpio.BCM, gpio.BOARD = 11, 10
    gpio.OUT, gpio.IN = 0, 1
    gpio.HIGH, gpio.LOW = 1, 0
    gpio.PUD_OFF, gpio.PUD_DOWN, gpio.PUD_UP = 20, 21, 22
    gpio.RISING, gpio.FALLING, gpio.BOTH = 31, 32, 33
    gpio.mode = None
    gpio.levels = {}
    gpio.setups = {}
    gpio.output_calls = []
    gpio.callbacks = {}
    gpio.cleaned = []

    def setmode(mode):
        gpio.mode = mode

    def setwarnings(flag):
        gpio.warnings = flag

    def setup(pin, direction, pull_up_down=gpio.PUD_OFF, initial=None):
        assert gpio.mode == gpio.BCM, "setmode(BCM) must come first"
        gpio.setups[pin] = (direction, pull_up_down, initial)
        if direction == gpio.OUT:
            gpio.levels[pin] = initial if initial is not None else gpio.LOW
        else:
            gpio.levels[pin] = gpio.HIGH if pull_up_down == gpio.PUD_UP else gpio.LOW

    def output(pins, values):
        gpio.output_calls.append((list(pins), list(values)))
        for pin, value in zip(pins, values, strict=True):
            assert gpio.setups[pin][0] == gpio.OUT, f"pin {pin} is not an output"
            gpio.levels[pin] = value

    def input(pin):  # noqa: A001 - the real API's name
        return gpio.levels[pin]

    def add_event_detect(pin, edge, callback=None, bouncetime=None):
        if not edge_detection_works:
            raise RuntimeError("Failed to add edge detection")
        gpio.callbacks[pin] = (edge, callback)

    def cleanup(pins=None):
        gpio.cleaned.append(pins)

    def drive(pin, level):
        """Test control: an external level on an input, firing its edge callback."""
        gpio.levels[pin] = level
        if pin in gpio.callbacks:
            gpio.callbacks[pin][1](pin)

    for function in (setmode, setwarnings, setup, output, input, add_event_detect, cleanup, drive):
        setattr(gpio, function.__name__, function)
    return gpio
