"""`sabot calibrate`: find the reading window in a camera frame and write it to the config."""

from __future__ import annotations

from pathlib import Path

from controller.cli._numbers import number
from controller.cli._paths import check_file_path
from controller.errors import InputError
from controller.service.config import set_camera_window
from vision.calibrate import annotate, find_window
from vision.errors import ImageReadError
from vision.imageio import read_image, write_image

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg")


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "calibrate",
        help="find the reading window in a camera frame",
        description="Find the card in IMAGE (one camera frame with a card face at its reading "
        "position, against the dark shoe interior), set `[camera] window = [x, y, w, h]` in "
        "the config (only that key is changed, comments and layout are kept; the file is "
        "created if missing, in a directory that must exist), and write an annotated PNG "
        "showing the card, its index corner and the window.",
    )
    parser.add_argument("image", metavar="IMAGE", help="a full camera frame")
    parser.add_argument("--config", required=True, metavar="PATH",
                        help="TOML config to update, e.g. /etc/sabot/config.toml")
    parser.add_argument("--out", metavar="PNG",
                        help="annotated image to write (default: IMAGE's name + "
                        ".calibration.png, beside the config)")
    parser.add_argument("--card-width", type=number(float, 16, 100_000, "pixels"), metavar="PX",
                        help="card width in pixels, when the card is not wholly in view")
    parser.set_defaults(func=run)


def run(args) -> int:
    out = Path(args.out) if args.out else (
        Path(args.config).parent / f"{Path(args.image).stem}.calibration.png")
    check_file_path("--config", args.config)
    check_file_path("--out", str(out))
    for option, given in (("IMAGE", args.image), ("--config", args.config)):
        if out.exists() and Path(given).exists() and out.samefile(given):
            raise InputError(f"--out {out}: that is {option} itself, which the annotated "
                             "image would overwrite; give another name")
    if out.suffix.lower() not in IMAGE_SUFFIXES:
        raise InputError(f"--out {out}: the annotated image is written as a PNG or JPEG: "
                         f"give a name ending {' or '.join(IMAGE_SUFFIXES[:2])}")
    frame = read_image(args.image)
    calibration = find_window(frame, args.card_width)
    # The image first: a command that fails changes no config (a trial, stop 52: the window
    # was written, then the command failed on the image's name).
    if not write_image(out, annotate(frame, calibration)):
        raise ImageReadError(f"{out}: cannot write the annotated image")
    set_camera_window(args.config, calibration.window)
    x, y, w, h = calibration.window
    print(f"[camera] window = [{x}, {y}, {w}, {h}] -> {args.config}")
    print(f"annotated frame -> {out}")
    if abs(calibration.angle) > 4:
        print(f"warning: the card is turned {calibration.angle:+.1f} degrees; the reader "
              "tolerates about 4: straighten the camera")
    if calibration.clipped:
        print("warning: the window runs off the frame and was cut: centre the camera")
    return 0
