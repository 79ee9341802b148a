"""`sabot emulate-shoe`: the shoe microcontroller, emulated on a pseudo-terminal, for rigs;
with `--camera`, the shoe's camera too (an MJPEG stream in step with the card sensor)."""

from __future__ import annotations

import argparse
import shlex
import signal
import sys
import threading
import time
from collections.abc import Iterable
from typing import TextIO

from controller.cli._numbers import colour, number
from controller.errors import InputError, SabotError
from controller.game import observations as obs
from controller.game.script import check_pushed_back, parse_script, read_input
from firmware_bridge.emulator import HISTORY, ShoeEmulator
from firmware_bridge.errors import MessageError
from firmware_bridge.faults import Faults
from firmware_bridge.messages import BUTTONS, PROTOCOL
from firmware_bridge.pty_shoe import PtyShoe
from firmware_bridge.session import LinkTiming

COMMANDS = f"""\
commands on stdin, one per line (also from a pipe or a FIFO):
  card [N]            deal N cards (default 1): CARD_PRESENT then CARD_GONE each; with
                      --camera, the next N of --shoe (or of a shuffled 8-deck shoe) pass
                      the camera's window too
  deal TOKEN...       with --camera: deal these, in the language of `sabot deal` (AS 10H,
                      ^KD face up, CUT, JOKER; NMB DISCLOSED ACK NEWSHOE COUNT press a button)
  pullback CODE       with --camera: a card drawn half way and pushed back into the shoe
  present | gone      only cover / uncover the card sensor (present counts a new card)
  button NAME         press a button: {", ".join(BUTTONS)}
  lid open|closed     open or close the shoe's lid
  error CODE TEXT     report an MCU error
  damage RATE         damage this share of frames from now on (0.05 = 5%), both ways
  reset               power-cycle the MCU (new boot id, counter back to 0)
  unplug | replug     close the pty / open a new one behind --link
  status              print counters, queue, lamps, link state
  quit                stop
At the end of a script of commands (a file or a pipe that ends, Ctrl-D) it stops once what
was asked is done: the cards dealt have passed the camera and a connected host has taken
every event; with --interval, once its --cards (or, with --camera, the order) are dealt. An
input with no command at all (< /dev/null, as a shell starts a job in the background)
leaves it serving until it is stopped (Ctrl-C, SIGTERM).
Output lines are `key: value`; `device:` comes first (and `camera:`, its URL), then `lamps:`
and `link:` changes, and `shown:` for each card as the camera starts to show it.
"""


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "emulate-shoe",
        help="run the emulated shoe microcontroller on a pseudo-terminal",
        description="Emulate the shoe's microcontroller (docs/protocol.md) on a pty so that "
        "`sabot run` or a rig can open it like the real serial port. Prints the device "
        "path, deals cards at --interval if given, and obeys commands on stdin.",
        epilog=COMMANDS,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--pty",
        action="store_true",
        default=True,
        help="serve on a new pseudo-terminal (the default and only mode)",
    )
    parser.add_argument(
        "--link",
        metavar="PATH",
        help="also make PATH a symlink to the pty (stable across replug), e.g. /tmp/sabot-shoe",
    )
    parser.add_argument("--interval", type=number(float, 0.001, 3600, "seconds"), metavar="S",
                        help="deal a card every S seconds")
    parser.add_argument(
        "--cards", type=number(int, 1), metavar="N",
        help="with --interval: stop dealing after N cards"
    )
    parser.add_argument(
        "--damage",
        type=number(float, 0, 1),
        default=0.0,
        metavar="RATE",
        help="share of frames to damage in both directions (default 0)",
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=None,
        help="seed for damage and boot ids (default: random boot id, which "
        "a real MCU has; a fixed one makes two runs look like the same boot)",
    )
    parser.add_argument("--firmware", default="sabot-emu 2.0", help="version text in HELLO")
    parser.add_argument(
        "--queue", type=number(int, 1, 100_000), default=HISTORY, metavar="N",
        help=f"events the MCU keeps, sent or not (default {HISTORY}, docs/protocol.md 8.3)"
    )
    parser.add_argument(
        "--protocol", type=int, choices=(1, 2), default=PROTOCOL,
        help=f"the highest link protocol version it speaks (default {PROTOCOL})"
    )
    camera = parser.add_argument_group(
        "the shoe's camera", "Serve the camera too: each card dealt slides through the "
        "reading window as MJPEG frames on http://127.0.0.1:PORT/stream.mjpg while the card "
        "sensor is covered, so `sabot run` with [camera] source = \"http\" and that url, and "
        "[serial] port = the pty, is driven end to end by this one process.")
    camera.add_argument("--camera", type=number(int, 0, 65535), metavar="PORT",
                        help="serve the camera on this loopback port (0: any free one)")
    camera.add_argument("--deck", metavar="DIR",
                        help="the deck design the camera shows: a folder of faces (as "
                        "../shared/decks/*), or synthetic (default)")
    camera.add_argument("--cut-colour", type=colour, metavar="COLOUR",
                        help="the cut card the camera shows: a plain card of this colour "
                        "(a name, #rrggbb or r,g,b; default the design's, else yellow), as "
                        "`sabot enroll --cut-colour` learns it")
    camera.add_argument("--fps", type=number(float, 1, 240),
                        help="frames per second (default 30: a card takes 0.8 s to pass, "
                        "24 frames; a reader slower than the camera drops frames, and a "
                        "card seen in fewer frames is more often unreadable)")
    camera.add_argument("--frames-per-card", type=number(int, 8, 200),
                        metavar="N", help="frames in which a card crosses the window "
                        "(default 24; a faster camera or a slower hand sees it in more)")
    camera.add_argument("--window", type=_at, metavar="X,Y",
                        help="where the reading window sits in the 320x260 frame (default "
                        "40,30: [camera] window = [40, 30, 128, 200])")
    camera.add_argument("--shoe", metavar="FILE", help="the order `card` and --interval deal "
                        "(the language of `sabot deal`; default: a shuffled 8-deck shoe)")
    parser.set_defaults(func=run)  # fmt: skip


def _at(text: str) -> tuple[int, int]:
    try:
        x, y = (int(v) for v in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: give X,Y in pixels") from None
    if not (0 <= x <= 320 - 128 and 0 <= y <= 260 - 200):
        raise argparse.ArgumentTypeError(f"{text}: the 128x200 window must fit the 320x260 "
                                         "frame (X 0-192, Y 0-60)")
    return x, y


def run(args) -> int:
    given = [option for option, value in _camera_options(args).items() if value is not None]
    if args.camera is None and given:
        # Only the camera deals an order or shows a design: without it they would be dropped.
        raise InputError(f"{', '.join(given)}: options of the shoe's camera: give --camera "
                         "PORT too")
    # Read before anything opens: a wrong file is named at once, not at the first `card`.
    order = shoe_order(args.shoe) if args.shoe is not None else None
    faults = Faults.damaged(args.damage)
    emulator = ShoeEmulator(
        timing=LinkTiming(), firmware=args.firmware, queue_limit=args.queue, seed=args.seed,
        protocol=args.protocol,
    )
    shoe = PtyShoe(
        emulator, to_host=faults, to_mcu=faults, seed=args.seed or 0, link_path=args.link
    )
    stop = threading.Event()
    # The handler only appends: setting `stop` there could wait for ever on the Event's lock,
    # held by this very thread when the signal came (see controller.service.main).
    terminated: list[int] = []
    signal.signal(signal.SIGTERM, lambda signum, frame: terminated.append(signum))
    dealer = camera_dealer(args, shoe, order) if args.camera is not None else None
    with shoe:
        say(sys.stdout, "device", shoe.device)
        if dealer is not None:
            dealer.camera.start()
            say(sys.stdout, "camera", dealer.camera.url)
        threading.Thread(target=watch, args=(shoe, sys.stdout, stop), daemon=True).start()
        dealing = None
        if args.interval:
            dealing = threading.Thread(
                target=auto_deal, args=(dealer or shoe, args.interval, args.cards, stop),
                daemon=True)  # fmt: skip
            dealing.start()

        def commands() -> None:
            ended = serve(shoe, sys.stdin, sys.stdout, dealer)
            if ended == NOTHING:
                return  # no input at all (started in the background): serve until stopped
            if ended == SCRIPT:
                finish(shoe, dealer, dealing)
            stop.set()

        threading.Thread(target=commands, daemon=True).start()
        try:
            while not (stop.is_set() or terminated):
                time.sleep(0.2)
        except KeyboardInterrupt:
            pass
        stop.set()
        if dealer is not None:
            dealer.camera.stop()
    return 0


def shoe_order(path: str) -> list[obs.Observation]:
    """The tokens of the --shoe file; InputError names a missing file or a bad token."""
    text, source = read_input(path)
    steps = parse_script(text, source)
    check_pushed_back(steps, source)
    return [step.observation for step in steps]


# The camera's options left to its defaults when not given: option -> `CameraDealer.open`'s
# keyword (the attribute of the parsed arguments is the option's name).
_CAMERA_DEFAULTED = {"--deck": "deck", "--cut-colour": "cut_colour", "--fps": "fps",
                     "--frames-per-card": "frames_per_card", "--window": "at"}


def _camera_options(args) -> dict[str, object]:
    """The options of the shoe's camera as given (None: not given, the camera's default)."""
    return {option: getattr(args, option[2:].replace("-", "_"))
            for option in (*_CAMERA_DEFAULTED, "--shoe")}


def camera_dealer(args, shoe: PtyShoe, order: list[obs.Observation] | None):
    from controller.sim.camera_dealer import CameraDealer  # noqa: PLC0415 - OpenCV only here

    given = _camera_options(args)
    return CameraDealer.open(shoe, port=args.camera, order=order, seed=args.seed,
                             on_card=lambda code: say(sys.stdout, "shown", code),
                             **{keyword: given[option]
                                for option, keyword in _CAMERA_DEFAULTED.items()
                                if given[option] is not None})


def say(out: TextIO, key: str, value: object) -> None:
    out.write(f"{key}: {value}\n")
    out.flush()


# How the commands on stdin ended: `quit`; the end of a script of commands; the end of an
# input that held none (/dev/null: a shell starts a background job so).
QUIT, SCRIPT, NOTHING = "quit", "script", "nothing"


def serve(shoe: PtyShoe, lines: Iterable[str], out: TextIO, dealer=None) -> str:
    """Obey commands until `quit` or the end of input; how they ended (QUIT, SCRIPT,
    NOTHING)."""
    obeyed = False
    for line in lines:
        words = shlex.split(line, comments=True)
        if not words:
            continue
        if words[0] == "quit":
            return QUIT
        obeyed = True
        try:
            obey(shoe, words, out, dealer)
        except (MessageError, ValueError, IndexError, SabotError) as error:
            say(out, "error", f"{line.strip()!r}: {error or 'missing argument'}")
    return SCRIPT if obeyed else NOTHING


HOST_GONE_AFTER = 2.0  # s the link may be down before the events queued are given up


def finish(shoe: PtyShoe, dealer=None, dealing: threading.Thread | None = None) -> None:
    """Wait until what was asked before the end of input is done, so that a script piped in
    is played to its end: --interval's cards dealt (never, without --cards or the camera's
    order to end it), the cards dealt past the camera, and every event queued taken by the
    host, unless the link has been down HOST_GONE_AFTER (no host, or one gone: a host that
    goes away takes the link down within a second, and one starting up has the link up
    sooner than that)."""
    if dealing is not None:
        dealing.join()
    if dealer is not None:
        dealer.camera.idle()
    down_since = None
    while shoe.emulator.queued:
        if shoe.emulator.up:
            down_since = None
        elif down_since is None:
            down_since = time.monotonic()
        elif time.monotonic() - down_since > HOST_GONE_AFTER:
            break
        time.sleep(0.02)


def obey(shoe: PtyShoe, words: list[str], out: TextIO, dealer=None) -> None:
    verb, rest = words[0], words[1:]
    emulator = shoe.emulator
    now = shoe.clock()
    if verb in ("deal", "pullback") and dealer is None:
        raise ValueError(f"`{verb}` needs the camera: start with --camera PORT")
    if verb == "card" and dealer is not None:
        for _ in range(int(rest[0]) if rest else 1):
            dealer.deal_next()
    elif verb == "deal":
        dealer.deal(" ".join(rest))
    elif verb == "pullback":
        dealer.pull_back(rest[0])
    elif verb == "card":
        for _ in range(int(rest[0]) if rest else 1):
            say(out, "dealt", shoe.deal_card())
    elif verb == "present":
        say(out, "dealt", emulator.card_present(now))
    elif verb == "gone":
        emulator.card_gone(now)
    elif verb == "button":
        shoe.press(rest[0])
    elif verb == "lid":
        if rest[0] not in ("open", "closed"):
            raise ValueError("say `lid open` or `lid closed`")
        shoe.set_lid(rest[0] == "open")
    elif verb == "error":
        emulator.report_error(int(rest[0]), " ".join(rest[1:]), now)
    elif verb == "damage":
        shoe.to_host.faults = shoe.to_mcu.faults = Faults.damaged(float(rest[0]))
    elif verb == "reset":
        shoe.reset()
    elif verb == "unplug":
        shoe.unplug()
    elif verb == "replug":
        say(out, "device", shoe.replug())
    elif verb == "status":
        say(out, "status", status(shoe))
    else:
        raise ValueError(f"unknown command {verb!r}; see `sabot emulate-shoe --help`")


def status(shoe: PtyShoe) -> str:
    emulator = shoe.emulator
    lamps = " ".join(sorted(emulator.shown_lamps)) or "-"
    line = "up" if emulator.up and shoe.running else "down"
    text = (
        f"link={line} plugged={shoe.plugged} "
        f"cards={emulator.card_counter} queued={emulator.queued} lamps={lamps} "
        f"boot={emulator.session.boot_id:#010x} malformed={emulator.malformed}"
    )
    if shoe.thread_errors:
        text += f" errors={shoe.thread_errors} last_error={shoe.last_thread_error!r}"
    return text


def watch(shoe: PtyShoe, out: TextIO, stop: threading.Event) -> None:
    """Print lamp and link changes as they happen (what a rig's log wants to see)."""
    seen_lamps, seen_up = None, None
    while not stop.wait(0.02):
        lamps, up = shoe.emulator.shown_lamps, shoe.emulator.up
        if lamps != seen_lamps:
            say(out, "lamps", " ".join(sorted(lamps)) or "-")
        if up != seen_up:
            say(out, "link", "up" if up else "down")
        seen_lamps, seen_up = lamps, up


def auto_deal(shoe, interval: float, cards: int | None, stop: threading.Event) -> None:
    """A card every `interval` (with the camera: the next token of the shoe's order, paced by
    the camera when it cannot show them that fast) until `cards` or the order's end."""
    dealt = 0
    next_at = time.monotonic()
    while cards is None or dealt < cards:
        next_at += interval
        if stop.wait(max(0.0, next_at - time.monotonic())):
            return
        if shoe.deal_card() is None:
            return  # the camera's order has been dealt
        dealt += 1
