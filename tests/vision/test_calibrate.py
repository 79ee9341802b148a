"""`sabot calibrate`: the window found in a whole camera frame, and the config it writes."""

from __future__ import annotations

import tomllib

import cv2
import numpy as np
import pytest

from controller.cli import main
from vision.calibrate import find_window
from vision.errors import CalibrationError
from vision.geometry import CARD_X0, CARD_X1, CARD_Y0
from vision.synth import camera_frame


@pytest.mark.parametrize("angle", [-3.0, 0.0, 2.5])
def test_the_window_found_reads_the_card(vector_deck, vector_reader, angle):
    frame = camera_frame(vector_deck, "9C", corner=(150, 30), card_width=280, angle=angle)
    calibration = find_window(frame)
    x, y, w, h = calibration.window
    assert abs(x - (150 + CARD_X0 * 280)) <= 4 and abs(y - (30 + CARD_Y0 * 280 * 436 / 300)) <= 5
    assert abs(w - (CARD_X1 - CARD_X0) * 280) <= 3
    assert abs(calibration.angle - angle) < 0.5
    assert vector_reader.read(frame[y : y + h, x : x + w]).card == "9C"


def test_a_card_running_off_the_frame_needs_its_width(vector_deck):
    frame = camera_frame(vector_deck, "AS", corner=(300, 40), card_width=400)
    with pytest.raises(CalibrationError, match="--card-width"):
        find_window(frame)
    assert find_window(frame, card_width=400).window[2] == round((CARD_X1 - CARD_X0) * 400)


def test_a_dark_frame_is_refused():
    with pytest.raises(CalibrationError):
        find_window(np.full((480, 640, 3), 20, np.uint8))


def test_calibrate_command_writes_config_and_annotated_png(tmp_path, vector_deck, capsys):
    image = tmp_path / "frame.png"
    cv2.imwrite(str(image), camera_frame(vector_deck, "QS"))
    config = tmp_path / "config.toml"
    config.write_text('[table]\nid = "t1"\n\n[camera]\nwindow = [0, 0, 128, 200]\n')
    out = tmp_path / "seen.png"
    assert main(["calibrate", str(image), "--config", str(config), "--out", str(out)]) == 0
    window = tomllib.loads(config.read_text())["camera"]["window"]
    assert window == list(find_window(camera_frame(vector_deck, "QS")).window)
    assert cv2.imread(str(out)).shape == (480, 640, 3)
    assert "[camera] window = [" in capsys.readouterr().out


def test_calibrate_command_fails_clearly(tmp_path, capsys):
    dark = tmp_path / "dark.png"
    cv2.imwrite(str(dark), np.full((120, 160, 3), 15, np.uint8))
    assert main(["calibrate", str(dark), "--config", str(tmp_path / "c.toml")]) == 2
    assert capsys.readouterr().err.startswith("sabot calibrate: ")
    assert not (tmp_path / "c.toml").exists()
    assert main(["calibrate", str(tmp_path / "none.png"), "--config",
                 str(tmp_path / "c.toml")]) == 2


@pytest.mark.parametrize("out", ["seen.txt", "no-such-folder/seen.png"])
def test_calibrate_that_cannot_write_its_image_leaves_the_config_alone(
        tmp_path, vector_deck, capsys, out):
    """A trial (stop 52): the config was changed, then the command failed (exit 2) with
    "cannot write the annotated image", saying neither why nor that the config had changed."""
    image = tmp_path / "frame.png"
    cv2.imwrite(str(image), camera_frame(vector_deck, "QS"))
    config = tmp_path / "config.toml"
    before = '[table]\nid = "t1"\n\n[camera]\nwindow = [0, 0, 128, 200]\n'
    config.write_text(before)
    assert main(["calibrate", str(image), "--config", str(config), "--out",
                 str(tmp_path / out)]) == 2
    err = capsys.readouterr().err
    assert f"--out {tmp_path / out}: " in err
    assert ("no such directory" if "/" in out else "give a name ending .png") in err
    assert config.read_text() == before


def test_calibrate_never_writes_its_picture_over_the_camera_frame(tmp_path, vector_deck,
                                                                    capsys):
    """A trial (stop 61): `--out` naming IMAGE replaced the camera frame with the annotated
    picture, and calibrating that file again found another window."""
    image = tmp_path / "frame.png"
    cv2.imwrite(str(image), camera_frame(vector_deck, "QS"))
    frame = image.read_bytes()
    config = tmp_path / "config.toml"
    before = '[table]\nid = "t1"\n\n[camera]\nwindow = [0, 0, 128, 200]\n'
    config.write_text(before)
    assert main(["calibrate", str(image), "--config", str(config), "--out",
                 str(tmp_path / "." / "frame.png")]) == 2
    assert "that is IMAGE itself" in capsys.readouterr().err
    assert image.read_bytes() == frame
    assert config.read_text() == before


def test_calibrate_asks_for_the_config_rather_than_writing_etc(tmp_path, vector_deck, capsys):
    image = tmp_path / "frame.png"
    cv2.imwrite(str(image), camera_frame(vector_deck, "QS"))
    with pytest.raises(SystemExit) as stopped:
        main(["calibrate", str(image)])
    assert stopped.value.code == 2
    assert "--config" in capsys.readouterr().err


def _paper_filling_the_frame() -> np.ndarray:
    """Bright paper with dark print all over, to the frame's edges."""
    frame = np.full((480, 640, 3), 225, np.uint8)
    for k in range(40):
        cv2.putText(frame, "7", (15 * k % 620, 20 + 11 * k), cv2.FONT_HERSHEY_SIMPLEX, 0.8,
                    (20, 20, 20), 2)
    return frame


@pytest.mark.parametrize("frame, message", [
    (np.full((480, 640, 3), 200, np.uint8), "all one shade"),
    (_paper_filling_the_frame(), "bright nearly everywhere"),
])
def test_a_frame_with_no_card_against_the_interior_says_so(frame, message):
    """Not "the card runs off the frame", as a blank or overexposed frame was told."""
    with pytest.raises(CalibrationError, match=message):
        find_window(frame)


def _interior_with(draw) -> np.ndarray:
    frame = np.clip(np.random.default_rng(1).normal(35, 4, (480, 640, 3)), 0, 255)
    frame = frame.astype(np.uint8)
    draw(frame)
    return frame


@pytest.mark.parametrize("frame, words", [
    (_interior_with(lambda f: cv2.circle(f, (300, 200), 60, (250, 250, 250), -1)),
     "118 x 118 pixels, 1.00 times as tall as wide and filling 80% of its outline: not a "
     "card's shape"),
    (_interior_with(lambda f: cv2.rectangle(f, (100, 100), (400, 140), (180, 180, 180), -1)),
     "not a card's shape"),
    (_interior_with(lambda f: cv2.rectangle(f, (100, 100), (360, 280), (230, 230, 230), -1)),
     "turned on its side"),
])
def test_a_bright_region_not_shaped_like_an_upright_card_is_no_card(frame, words):
    """An engineer's trial (stop 47): a frame of the empty shoe with a glare in it gave a
    window, and no word of doubt."""
    with pytest.raises(CalibrationError, match=words):
        find_window(frame)
    upright = _interior_with(lambda f: cv2.rectangle(f, (200, 100), (380, 360),
                                                     (230, 230, 230), -1))
    assert find_window(upright).window[2:] == (72, 112)


def test_a_card_width_that_makes_the_window_larger_than_the_frame_is_refused(vector_deck):
    frame = camera_frame(vector_deck, "AS", corner=(300, 40), card_width=400)
    with pytest.raises(CalibrationError, match="larger than the 640 x 480 frame: is "
                                               "--card-width 5000 right"):
        find_window(frame, card_width=5000)


def test_calibrate_writes_no_directory_that_is_not_there(tmp_path, vector_deck, capsys):
    image = tmp_path / "frame.png"
    cv2.imwrite(str(image), camera_frame(vector_deck, "QS"))
    config = tmp_path / "no" / "such" / "config.toml"
    assert main(["calibrate", str(image), "--config", str(config)]) == 2
    assert "no such directory" in capsys.readouterr().err
    assert not (tmp_path / "no").exists()
