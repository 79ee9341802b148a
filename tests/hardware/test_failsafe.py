import os
import signal

from hardware.failsafe import Watchdog, install
from hardware.fake_pins import FakePins
from hardware.lamps import Lamps

CONFIG = {"player_draw": 17, "banker_stand": 10, "fault": 4}


def test_watchdog_trips_once_when_not_fed_and_rearms_after_a_feed():
    clock = [0.0]
    lamps = Lamps(CONFIG, FakePins())
    lamps.show({"player_draw"})
    dog = Watchdog(lamps, timeout=1.0, clock=lambda: clock[0])
    assert not dog.check(0.9)
    assert lamps.lit == {"player_draw"}
    assert dog.check(1.5)
    assert lamps.lit == {"fault"}
    lamps.show({"banker_stand"})
    assert dog.check(2.0) and lamps.lit == {"banker_stand"}  # tripped once per outage
    clock[0] = 2.0
    dog.feed()
    assert not dog.check(2.5) and not dog.tripped


def test_sigterm_puts_lamps_in_the_fail_safe_state_then_calls_the_previous_handler():
    pins = FakePins()
    lamps = Lamps(CONFIG, pins)
    lamps.show({"player_draw"})
    seen = []
    original = signal.signal(signal.SIGTERM, lambda signum, frame: seen.append(signum))
    try:
        uninstall = install(lamps)
        os.kill(os.getpid(), signal.SIGTERM)
        uninstall()
    finally:
        signal.signal(signal.SIGTERM, original)
    assert seen == [signal.SIGTERM]
    assert lamps.lit == {"fault"} and pins.closed
    assert pins.outputs == {17: False, 10: False, 4: True}


def test_uninstall_restores_the_previous_handlers():
    before = signal.getsignal(signal.SIGHUP)
    uninstall = install(Lamps(CONFIG, FakePins()))
    assert signal.getsignal(signal.SIGHUP) is not before
    uninstall()
    assert signal.getsignal(signal.SIGHUP) == before
