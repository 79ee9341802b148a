"""`sabot simulate`: the main job on the embedded default, a whole shoe with emulated hardware.

Shuffles an 8-deck shoe (or plays `--shoe FILE`), and deals it through the real pipeline:
synthetic camera -> Tracker, emulated microcontroller on a pseudo-terminal -> Link, queue ->
rules -> fake GPIO lamps -> SQLite journal. Shows the table live, or prints the same JSON
event lines as `sabot deal` (then a `stats` line) with --json.
"""

from __future__ import annotations

import json
import secrets
import sys
import time

from controller.cli._journal_path import journal_path, signer_of
from controller.cli._numbers import colour, number


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "simulate", help="deal a whole shoe through the real pipeline with emulated hardware",
        description=__doc__.split("\n\n", 1)[1])
    parser.add_argument("--shoe", metavar="FILE", help="card order to deal (sabot deal's "
                        "input language); default: a freshly shuffled shoe")
    parser.add_argument("--decks", type=number(int, 1, 12), default=8,
                        help="decks in the shoe, 1-12 (default 8)")
    parser.add_argument("--style", choices=("A", "B"), default="A", help="dealing style")
    parser.add_argument("--seed", type=int, default=None, help="seed for the shuffle and the "
                        "camera noise")
    parser.add_argument("--speed", type=number(float, 0, 10_000, "cards per second"),
                        default=None, metavar="CARDS_PER_S",
                        help="dealing pace in cards per second; 0 = as fast as possible "
                        "(default: 3 in a terminal, 0 with --json)")
    parser.add_argument("--deck", default="synthetic", help="card design: 'synthetic' (built "
                        "in), 'shared' (../shared/decks/vector-playing-cards), a folder of "
                        "faces, or the name of one in ../shared/decks ($SABOT_DECKS)")
    parser.add_argument("--cut-colour", type=colour, metavar="COLOUR",
                        help="the shoe's cut card: a plain card of this colour, in place of "
                        "the design's (default yellow): a name, #rrggbb or r,g,b, as "
                        "`sabot enroll --cut-colour` takes it")
    parser.add_argument("--profile", metavar="PROFILE", help="read the design with this "
                        "profile of `sabot enroll` instead of learning it here: the shoe then "
                        "proves the profile a table would use (one enrolled without a cut "
                        "card halts at the cut card, as a table would: warned of before the "
                        "shoe starts, as is one that reads few of the design's cards)")
    parser.add_argument("--journal", metavar="PATH", help="journal file; if it already holds "
                        "the start of the same shoe (an interrupted run), dealing resumes after "
                        "it; default: a new file in a temporary folder")
    parser.add_argument("--sign", metavar="KEY",
                        help="sign the journal's heads with the table key at KEY (created if "
                        "absent, owner-only, with KEY.pub beside it, as `sabot run` does): a "
                        "journal to check with `sabot verify --key KEY.pub`")
    parser.add_argument("--damage", type=number(float, 0, 0.5), default=0.0, metavar="RATE",
                        help="share of serial frames to damage each way, as a bad cable "
                        "would (garbage, bit flips, lost, doubled; default 0)")
    parser.add_argument("--json", action="store_true", help="print JSON event lines")
    parser.add_argument("--mqtt", metavar="URL", help="publish every event to this broker "
                        "(mqtt://host:port or mqtts://host:port), as `sabot run` does")
    parser.add_argument("--table", default="sim-1", metavar="ID",
                        help="table id in the journal and the topics (default sim-1)")
    parser.set_defaults(func=run)


def run(args) -> int:
    from controller.cli._output import EventPrinter, finish
    from controller.errors import InputError
    from controller.journal.replay import check_journal_continues, input_steps
    from controller.sim.setup import build_simulation, load_observations
    from controller.surveillance.broker import open_client, parse_broker_url
    from controller.surveillance.messages import OFFLINE, check_table_id, topic

    if args.sign and args.journal is None:
        # As `deal`: a journal in a temporary folder, signed, was kept where nobody was told
        # (a trial, stop 52).
        raise InputError("--sign signs a journal: give --journal PATH too")
    # Drawn here and said, not left to the shuffle: a run that is interrupted resumes only
    # from the same shoe (a trial, stop 61: its seed was nowhere to be found).
    seed = secrets.randbelow(2**31) if args.seed is None else args.seed
    if args.seed is None and args.shoe is None:
        print(f"sabot simulate: shuffled with --seed {seed} (give it again, with the same "
              "--journal, to resume this shoe)", file=sys.stderr)
    observations, settings = load_observations(args.shoe, args.decks, args.style, seed)
    check_table_id(args.table, "--table")
    reader = None
    if args.profile:
        from vision.profile import load_profile  # noqa: PLC0415 - only when asked for
        from vision.reader import Reader  # noqa: PLC0415

        reader = Reader(load_profile(args.profile))
    broker = None
    if args.mqtt:
        broker = open_client(parse_broker_url(args.mqtt), client_id=f"sabot-{args.table}",
                             will=(topic(args.table, "status"), OFFLINE))
    speed = args.speed if args.speed is not None else (0.0 if args.json else 3.0)
    if speed < 0:
        raise InputError(f"--speed must be 0 or more, not {args.speed}")
    with journal_path(args.journal, "sabot-", "simulate.sqlite") as journal:
        # Before anything is written. The shoe is read by the camera path: a card it could not
        # read is journaled as unreadable where the input has the card.
        check_journal_continues(journal, observations, camera=True)
        printer = EventPrinter(True) if args.json else None
        with build_simulation(settings, journal, deck_name=args.deck,
                              cut_colour=args.cut_colour, seed=seed,
                              speed=speed, sink=printer, broker=broker, table_id=args.table,
                              damage=args.damage, reader=reader,
                              signer=signer_of(args.sign)) as sim:
            remaining = observations[len(input_steps(sim.resumed)):]
            if reader is not None:
                _say_what_the_profile_will_not_read(
                    reader, sim.deck, args.profile,
                    deals_cut=any(observation.kind == "cut" for observation in remaining))
            # The shoe's time, from its first card: not the design's learning (once, cached) nor
            # the start of the emulated shoe.
            started = time.monotonic()
            if sim.resumed:
                print(f"sabot simulate: resuming after {len(sim.resumed)} journaled observations",
                      file=sys.stderr)
            if args.json:
                if not sim.resumed:
                    printer({"event": "new_shoe", "shoe": 1, "decks": args.decks,
                             "style": args.style})
                sim.dealer.play(remaining)
            else:
                sim.play_live(remaining, title=f"Sabot simulate - {len(observations)} tokens")
            sim.drain()
            table = sim.service.table
            stats = sim.stats(wall_s=time.monotonic() - started)
    status, end = finish(table)
    if args.json:
        if end is not None:
            printer(end)
        sys.stdout.write(json.dumps({"event": "stats", **stats}) + "\n")
    else:
        if end is not None:
            print(end["reason"])
        print(f"{stats['cards']} cards, {stats['frames']} frames in {stats['wall_s']:.1f} s; "
              f"frame-to-lamp latency p50 {stats['latency_ms_p50']} ms, "
              f"p99 {stats['latency_ms_p99']} ms; journal {journal}")
    return status


# Of a design's cards shown in place, a profile of another design reads some all the same
# (the same index letters): four sampled cards of gnome-berlin all read with gnome-orell's,
# and its shoe halted at the first card it could not. Fewer than this share read: warned.
LEAST_READ = 0.9


def _say_what_the_profile_will_not_read(reader, deck, profile: str, *,
                                             deals_cut: bool = True) -> None:
    """A profile shown a design it was not enrolled from leaves cards unreadable, and one
    enrolled without the shoe's cut card leaves that unreadable: say which before the shoe
    halts there, from every card of the design and its cut card in place (a fifth of a
    second). `deals_cut`: the shoe still deals its cut card (a --shoe FILE without one, or
    a shoe resumed past it, never shows it)."""
    from vision.cards import ALL_CARDS  # noqa: PLC0415 - only with --profile
    from vision.synth import render_window  # noqa: PLC0415

    read = sum(reader.read(render_window(deck, code)).card == code for code in ALL_CARDS)
    if read < LEAST_READ * len(ALL_CARDS):
        print(f"sabot simulate: warning: {profile} reads {read} of the {len(ALL_CARDS)} cards "
              f"of the {deck.name} design shown in place: is it that design's profile? "
              "(--deck DIR shows the design it was enrolled from; without --deck, the "
              "built-in one)", file=sys.stderr)
    if not deals_cut:
        return
    cut = reader.read(render_window(deck, "CUT"))
    if cut.kind != "cut":
        what = cut.reason if cut.kind == "unknown" else f"read as {cut.card or cut.kind}"
        print(f"sabot simulate: warning: {profile} does not read the shoe's cut card in place "
              f"({what}): the table halts when it comes (enrol the cut card the shoe deals: "
              "a cut*.png sample, or `sabot enroll --cut-colour`; or deal the profile's own "
              "with --cut-colour)", file=sys.stderr)
