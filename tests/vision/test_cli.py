"""`sabot enroll` and `sabot read` through the real CLI entry point."""

from __future__ import annotations

import json
import re
import shutil

import cv2
import numpy as np
import pytest

from controller.cli import main
from vision.synth import random_perturbation, render_window


@pytest.fixture(scope="module")
def profile(tmp_path_factory, vector_samples):
    out = tmp_path_factory.mktemp("profile") / "vector.npz"
    assert main(["enroll", str(vector_samples), "--out", str(out), "--views", "12"]) == 0
    return out


@pytest.fixture()
def samples_copy(tmp_path, vector_samples):
    return shutil.copytree(vector_samples, tmp_path / "samples")


def _write(path, image):
    cv2.imwrite(str(path), image)
    return str(path)


def test_read_json_prints_one_line_per_image(profile, tmp_path, vector_deck, capsys):
    rng = np.random.default_rng(3)
    codes = ("QD", "BACK", "CUT", "EMPTY", "JOKER")
    windows = [render_window(vector_deck, c, random_perturbation(rng, 0.5), rng=rng) for c in codes]
    images = [_write(tmp_path / f"{code}.jpg", w) for code, w in zip(codes, windows, strict=True)]
    assert main(["read", "--profile", str(profile), *images, "--json"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [line["image"] for line in lines] == images
    assert lines[0] == {"image": images[0], "kind": "face", "card": "QD", "rank": "Q",
                        "suit": "D", "score": lines[0]["score"]}
    assert 0.6 <= lines[0]["score"] <= 1.0
    assert [line["kind"] for line in lines[1:]] == ["back", "cut", "empty", "unknown"]
    assert all(line["card"] is None and line["rank"] is None for line in lines[1:])
    # An unknown says why, as the table does; the others have no note.
    assert lines[-1]["note"].startswith(("not a card: ", "not sure: "))
    assert all("note" not in line for line in lines[:-1])


def test_read_without_json_prints_a_table(profile, vector_samples, capsys):
    assert main(["read", "--profile", str(profile), str(vector_samples / "AS.png")]) == 0
    out = capsys.readouterr().out
    assert "face" in out and "AS" in out


def test_read_cuts_the_window_from_a_whole_card_face_and_says_so(profile, tmp_path,
                                                                 vector_deck, capsys):
    """A new user reads one of the faces just enrolled: read as a window, a whole face
    looked like a blank one (`unknown`)."""
    face = _write(tmp_path / "KD.png", vector_deck.image("KD"))
    window = _write(tmp_path / "QD.png", render_window(vector_deck, "QD"))
    assert main(["read", "--profile", str(profile), face, window, "--json"]) == 0
    captured = capsys.readouterr()
    lines = [json.loads(line) for line in captured.out.splitlines()]
    assert [(line["kind"], line["card"]) for line in lines] == [("face", "KD"), ("face", "QD")]
    assert f"note: {face}: a whole card (a face or a back" in captured.err
    assert "QD.png" not in captured.err  # a window is read as it is, without a word


def test_read_refuses_an_image_too_small_to_be_a_window(profile, tmp_path, capsys):
    """Resized, a 1 x 1 image is one even colour: it was read as the empty shoe at 1.00."""
    tiny = _write(tmp_path / "tiny.png", np.full((1, 1, 3), 40, np.uint8))
    assert main(["read", "--profile", str(profile), tiny]) == 2
    err = capsys.readouterr().err
    assert f"{tiny}: 1 x 1 px, too small to be a reading window (nominal 128 x 200" in err
    assert "Traceback" not in err
    # A quarter of the window each way is the least: 32 x 50 is read, 31 x 50 is not.
    least = _write(tmp_path / "least.png", np.full((50, 32, 3), 40, np.uint8))
    assert main(["read", "--profile", str(profile), least]) == 0
    narrow = _write(tmp_path / "narrow.png", np.full((50, 31, 3), 40, np.uint8))
    assert main(["read", "--profile", str(profile), narrow]) == 2
    assert "31 x 50 px, too small" in capsys.readouterr().err


def test_read_says_when_an_image_is_not_a_windows_shape(profile, tmp_path, vector_deck,
                                                         capsys):
    """A whole camera frame is read squeezed to a window, and the user is told why it is
    unlikely to read: it is not one."""
    frame = np.full((480, 640, 3), 30, np.uint8)
    frame[100:300, 200:328] = render_window(vector_deck, "QD")
    path = _write(tmp_path / "frame.png", frame)
    assert main(["read", "--profile", str(profile), path, "--json"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["image"] == path
    assert f"note: {path}: 640 x 480 px is not a reading window's shape" in captured.err
    assert "`sabot calibrate` finds the window in one" in captured.err


def test_enroll_names_the_missing_cards(samples_copy, tmp_path, capsys):
    for suit in "SHDC":
        (samples_copy / f"7{suit}.png").unlink()
    assert main(["enroll", str(samples_copy), "--out", str(tmp_path / "p.npz")]) == 2
    err = capsys.readouterr().err
    assert "no sample of 7S, 7H, 7D, 7C (every one of the 52 cards needs one)" in err
    assert not (tmp_path / "p.npz").exists()


def test_enroll_names_the_files_skipped_for_their_names_beside_a_missing_card(
        samples_copy, tmp_path, capsys):
    """The skipped file is the likeliest missing card, and its note was never printed:
    enrolment stops before the notes."""
    (samples_copy / "AS.png").rename(samples_copy / "ASpades.png")
    assert main(["enroll", str(samples_copy), "--out", str(tmp_path / "p.npz")]) == 2
    assert ("no sample of AS (every one of the 52 cards needs one; skipped, a name that is "
            "no card code or a picture in a format not read: ASpades.png)") in (
        capsys.readouterr().err)


def test_a_card_sample_in_a_format_not_read_is_named(samples_copy, tmp_path, capsys):
    """An operator's trial (stop 48): AS.gif beside the others gave "no sample of AS" with
    nothing to say why."""
    from vision.samples import read_samples  # noqa: PLC0415

    (samples_copy / "AS.png").rename(samples_copy / "AS.gif")
    assert main(["enroll", str(samples_copy), "--out", str(tmp_path / "p.npz")]) == 2
    assert "no sample of AS" in capsys.readouterr().err and "AS.gif" in (
        read_samples(samples_copy).skipped)
    assert ("AS.gif: .gif is not read (.bmp, .jpeg, .jpg, .png, .tif, .tiff, .webp): "
            "skipped; save it as PNG") in read_samples(samples_copy).notes


def test_two_samples_of_one_card_are_noted(samples_copy):
    """A retake left beside the first (QS.png and qs.PNG): both are learned, and said."""
    from vision.samples import read_samples

    shutil.copy(samples_copy / "QS.png", samples_copy / "qs.PNG")
    notes = read_samples(samples_copy).notes
    assert "QS: 2 samples (QS.png, qs.PNG), all learned: remove any not meant to be one" in notes
    assert not any(note.startswith("QD:") for note in notes)


def test_enroll_refuses_one_sample_per_rank(samples_copy, tmp_path, capsys):
    """Each card is learned as itself (its pips and art tell it apart): a card never sampled
    would be read as the nearest one that was, so every card must be there."""
    for path in samples_copy.glob("*.png"):
        if path.stem[-1] in "HDC" and path.stem not in ("AH", "2D", "3C"):
            path.unlink()
    assert main(["enroll", str(samples_copy), "--out", str(tmp_path / "p.npz")]) == 2
    assert "no sample of 2H, 3H, 4H" in capsys.readouterr().err


@pytest.mark.parametrize("views", ["1", "401", "many"])
def test_enroll_refuses_a_bad_number_of_views(samples_copy, tmp_path, capsys, views):
    with pytest.raises(SystemExit) as stop:
        main(["enroll", str(samples_copy), "--out", str(tmp_path / "p.npz"), "--views", views])
    assert stop.value.code == 2
    assert "--views" in capsys.readouterr().err


def test_enroll_fails_on_an_unreadable_file(samples_copy, tmp_path, capsys):
    (samples_copy / "KD.png").write_bytes(b"not a png at all")
    assert main(["enroll", str(samples_copy), "--out", str(tmp_path / "p.npz")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("sabot enroll: ") and "KD.png" in err and "not a readable image" in err


def test_enroll_skips_other_names_and_jokers_and_notes_a_missing_cut_card(samples_copy,
                                                                          tmp_path, capsys):
    """Names that are not card codes and jokers are skipped, each with a note naming it, and a
    missing cut card is a note: never a failure (one enrolment for all of them, as an
    operator's folder may hold them all)."""
    odd = ["1S.png", "QX.png", "ace_of_spades.png"]
    for name in odd:
        shutil.copy(samples_copy / "AS.png", samples_copy / name)
    # A joker of its own: a copy of a card's picture is refused (named as two things).
    joker = cv2.imread(str(samples_copy / "AS.png"), cv2.IMREAD_UNCHANGED)
    cv2.imwrite(str(samples_copy / "joker_1.png"), cv2.flip(joker, -1))
    (samples_copy / "cut.png").unlink()
    (samples_copy / "back.png").unlink()
    assert main(["enroll", str(samples_copy), "--out", str(tmp_path / "p.npz"),
                 "--views", "4"]) == 0
    err = capsys.readouterr().err
    for name in odd:
        assert f"note: {name}: not a card code" in err
    assert "note: joker_1.png: a joker, not a card of the shoe" in err
    assert ("note: no cut*.png sample: a cut card will read as unknown, which halts the table "
            "at every shoe's cut card: add a picture of the shoe's cut card") in err
    # The to-do list asks for both (a second review, stop 49: not for the back).
    assert ("to do:\n  - add a picture of the cards' back (back.png): without it the table "
            "halts at every card dealt face up\n  - add a picture of the shoe's cut card "
            "(cut.png), or give its colour (--cut-colour): without it the table halts at "
            "every shoe's cut card") in err
    assert "no empty*.png" not in err  # the operator's samples show the empty window
    assert (tmp_path / "p.npz").exists()


def test_enroll_from_whole_faces_draws_a_sheet_and_reports_the_calibration(
        tmp_path, capsys, synth_faces):
    out, sheet = tmp_path / "p.npz", tmp_path / "sheet.png"
    assert main(["enroll", str(synth_faces), "--out", str(out), "--views", "6",
                 "--sheet", str(sheet)]) == 0
    err = capsys.readouterr().err
    assert "enrolled 52 cards and back, cut, empty" in err
    assert "held-back views:" in err and "margin found" in err
    # A sample named wrong cannot be told: the operator is asked to look (stop 48's trial).
    assert err.rstrip().endswith(f"  - check on the sheet ({sheet}) that each sample shows "
                                 "the card its file is named: one named wrong is learned as "
                                 "that card, and read as it")
    # Then in an operator's words: what the profile does, and what is left to do (stop 48's
    # trial: the lines were written for engineers).
    assert re.search(r"\nresult: the profile read \d+\.\d% of \d+ test views of the cards, "
                     r"none as another card; a card it cannot read halts the table, it never "
                     r"guesses\nto do:\n", err)
    assert "add a picture of the shoe's cut card" not in err.split("to do:")[1]
    # Which cards were learned again, taken for one another in held-back views (or none).
    assert re.search(r"learned again from 3 times the views: \d+ cards held-back views took "
                     r"for one another \(([2-9AJQK]|10)[CDHS]( ([2-9AJQK]|10)[CDHS])*\)"
                     r"|no held-back view of a card was taken for another card", err)
    # Where the design prints its suit, and what the suit check stops.
    assert re.search(r"suit check: where the design prints its suit \(a box \d+ x \d+ px, "
                     r"\d+ px in from the index zone's left and \d+ down from its top\), the "
                     r"suit read (must lead the other three by \d\.\d\d|may trail the "
                     r"nearest of the other three by \d\.\d\d at most); it stops \d+ "
                     r"held-back cards read wrong", err)
    # How reliably a back, the cut card and the empty window are read (never as another).
    assert re.search(r"held back and read with confidence: \d+\.\d% of the backs, "
                     r"\d+\.\d% of the cut cards, \d+\.\d% of the empty windows \(the rest left "
                     r"unknown\)", err)
    # The empty-window gate says what it does: a share of the empty windows, or none.
    assert re.search(r"empty window told at a glance of its colour: (\d+% of the held-back "
                     r"ones|never)", err)
    picture = cv2.imread(str(sheet))
    assert picture is not None and picture.shape[1] == 13 * 64
    assert "views of cards read with confidence" in err  # views, not cards
    # The sheet's own time, which the enrolment's leaves out (a trial, stop 52: 38 s more,
    # with nothing shown).
    assert re.search(rf"sheet -> {re.escape(str(sheet))} \(the held-back views read again "
                     r"in \d+\.\d s\)", err)


def test_the_sheet_reports_its_progress_over_every_held_back_view(vector_reader):
    from types import SimpleNamespace  # noqa: PLC0415

    from vision.sheet import misread  # noqa: PLC0415

    held = [SimpleNamespace(window=np.zeros((200, 128, 3), np.uint8), truth_card=None,
                            truth_kind="empty", truth="empty", sliding=False)] * 130
    calls = []
    misread(SimpleNamespace(profile=vector_reader.profile, held_out=held),
            progress=lambda done, total: calls.append((done, total)))
    assert calls == [(0, 130), (64, 130), (128, 130)]


def test_the_sheet_draws_the_enrolled_windows_in_sheet_order(mocker, tmp_path):
    from types import SimpleNamespace  # noqa: PLC0415

    import vision.sheet as sheet  # noqa: PLC0415

    drawn = []
    tile = sheet._tile
    mocker.patch.object(sheet, "_tile", side_effect=lambda window, label, colour: (
        drawn.append(label), tile(window, label, colour))[1])
    mocker.patch.object(sheet, "misread", return_value=[])
    window = np.zeros((200, 128, 3), np.uint8)
    names = ["10C", "2C", "AC", "back", "KC"]
    sheet.write_sheet(SimpleNamespace(nominal=dict.fromkeys(names, window)),
                      tmp_path / "s.png")
    assert drawn == ["AC", "2C", "10C", "KC", "back"]


def test_the_sheet_shows_the_cards_a_suit_a_row_in_rank_order():
    """Sorted as file names, 10C came before 2C and the aces after the nines."""
    from vision.cards import ALL_CARDS  # noqa: PLC0415
    from vision.sheet import sheet_order  # noqa: PLC0415

    names = sorted([*ALL_CARDS, "back", "cut", "empty"])
    ordered = sheet_order(names)
    assert ordered[:14] == ["AS", "2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S", "10S", "JS",
                            "QS", "KS", "AH"]
    assert ordered[-3:] == ["back", "cut", "empty"] and sorted(ordered) == names


def test_enroll_fails_on_a_missing_directory(tmp_path, capsys):
    assert main(["enroll", str(tmp_path / "nope"), "--out", str(tmp_path / "p.npz")]) == 2
    assert "no such samples directory" in capsys.readouterr().err
    (tmp_path / "7H.png").write_bytes(b"")
    assert main(["enroll", str(tmp_path / "7H.png"), "--out", str(tmp_path / "p.npz")]) == 2
    assert "7H.png: a file; give the directory of samples it is in" in capsys.readouterr().err


def test_read_given_a_directory_says_so(profile, tmp_path, capsys):
    assert main(["read", "--profile", str(profile), str(tmp_path)]) == 2
    assert f"{tmp_path}: a directory; give the image files in it" in capsys.readouterr().err


def test_read_fails_on_a_missing_or_unreadable_image(profile, tmp_path, capsys):
    assert main(["read", "--profile", str(profile), str(tmp_path / "gone.png")]) == 2
    assert "gone.png: no such image file" in capsys.readouterr().err
    bad = tmp_path / "bad.png"
    bad.write_text("hello")
    assert main(["read", "--profile", str(profile), str(bad), "--json"]) == 2
    captured = capsys.readouterr()
    assert "bad.png: not a readable image" in captured.err and captured.out == ""


def test_read_fails_on_a_bad_profile(tmp_path, vector_samples, capsys):
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"nonsense")
    image = str(vector_samples / "AS.png")
    assert main(["read", "--profile", str(bad), image]) == 2
    assert "bad.npz: not a Sabot profile" in capsys.readouterr().err
    assert main(["read", "--profile", str(tmp_path / "none.npz"), image]) == 2
    assert "no such profile" in capsys.readouterr().err


@pytest.mark.parametrize("option, path, says", [
    ("--out", "no/such/dir/p.npz", "--out no/such/dir/p.npz: no such directory no/such/dir"),
    ("--out", ".", "--out .: a directory; give a file name in it"),
    ("--sheet", "sheet.jpg", "--sheet sheet.jpg: the sheet is a PNG; name it *.png"),
    ("--sheet", "gone/sheet.png", "--sheet gone/sheet.png: no such directory gone"),
])
def test_enroll_refuses_an_output_it_could_not_write_before_it_learns_anything(
        samples_copy, tmp_path, capsys, monkeypatch, option, path, says):
    """A new user's trial: a bad --out was found only after the whole enrolment, and ended
    with OSError's words and status 1."""
    monkeypatch.chdir(tmp_path)
    args = ["enroll", str(samples_copy), "--out", "p.npz", "--views", "4"]
    args += [option, path] if option == "--sheet" else []
    if option == "--out":
        args[3] = path
    assert main(args) == 2
    err = capsys.readouterr().err
    assert says in err and "enrolled" not in err
    assert not (tmp_path / "p.npz").exists()


def test_enroll_says_when_the_empty_window_it_learned_was_assumed(tmp_path, capsys,
                                                                 synth_faces):
    faces = tmp_path / "faces"
    shutil.copytree(synth_faces, faces)
    for empty in faces.glob("empty*"):
        empty.unlink()
    assert main(["enroll", str(faces), "--out", str(tmp_path / "p.npz"), "--views", "4"]) == 0
    err = capsys.readouterr().err
    assert "note: no empty*.png sample" in err
    assert "enrolled 52 cards and back, cut, empty (assumed dark grey) in" in err


def test_simulate_reads_with_the_profile_given_and_halts_where_a_table_would(
        tmp_path, capsys, synth_faces):
    """A new user's trial: a design enrolled with no cut card sample passed `sabot simulate
    --deck`, which learned the design itself with a drawn cut card; with `--profile` the
    simulator reads with the profile a table would use, and halts at the cut card."""
    faces = tmp_path / "faces"
    shutil.copytree(synth_faces, faces)
    for cut in faces.glob("cut*"):
        cut.unlink()
    profile = tmp_path / "p.npz"
    assert main(["enroll", str(faces), "--out", str(profile), "--views", "4"]) == 0
    assert "no cut*.png sample" in capsys.readouterr().err
    shoe = tmp_path / "shoe.txt"
    shoe.write_text("AS 2C 2H 3D CUT 4H 5D KH KD\n")
    status = main(["simulate", "--json", "--shoe", str(shoe), "--seed", "3", "--profile",
                   str(profile)])
    events = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    faults = [e for e in events if e["event"] == "fault"]
    assert status != 0 and faults
    assert not any(e["event"] == "cut_card" for e in events)


def test_a_value_short_of_its_need_never_reads_as_equal_to_it():
    """An enrolment note read "looks like it 0.59 (needs 0.59)": to two places the value
    short of its need showed as equal."""
    from vision.reader import _against  # noqa: PLC0415

    assert _against(0.5891, 0.5903) == "0.589 (needs 0.590)"
    assert _against(0.5895, 0.5904) == "0.5895 (needs 0.5904)"  # equal to three places too
    assert _against(0.7, 0.7) == "0.70 (needs 0.70)"  # equal: passes
    assert _against(0.81, 0.75) == "0.81 (needs 0.75)"
    assert _against(0.02, 0.04, ", or a lead") == "0.02 (needs 0.04, or a lead)"


def test_a_sheet_labels_a_view_not_read_by_what_it_shows_and_one_read_wrong_by_both():
    from vision.sheet import problem_label  # noqa: PLC0415

    assert problem_label("empty", "unknown") == "empty"  # was cut to "empty>unkno"
    assert problem_label("5C", "4C") == "5C>4C"
    assert len(problem_label("travel:KS", "unknown")) <= 12


@pytest.mark.parametrize("copy_of, named", [("9D.png", "6D.png"), ("back.png", "5H.png"),
                                             ("cut.png", "empty.png")])
def test_a_card_sample_holding_another_things_picture_is_refused(samples_copy, tmp_path,
                                                                  capsys, copy_of, named):
    """An operator's trial (stop 48): 6D.png a copy of 9D.png, 5H.png the back, enrolled with
    no word; the profile then read a 6D as 8D with confidence."""
    if not (samples_copy / copy_of).exists():
        pytest.fail(f"the test samples have no {copy_of}")
    shutil.copy(samples_copy / copy_of, samples_copy / named)
    assert main(["enroll", str(samples_copy), "--out", str(tmp_path / "p.npz")]) == 2
    err = capsys.readouterr().err
    assert "hold the same picture, but name different things" in err
    assert copy_of in err and named in err and "Traceback" not in err


def test_a_cut_card_given_by_its_colour_is_enrolled_and_read_where_a_shoe_deals_it(
        tmp_path, capsys, synth_faces):
    """No command drew a cut card for a folder of faces (stop 52's known limit): the operator
    of a design's artwork had to make a cut.png in an image editor. `--cut-colour` draws the
    plain card; `simulate --cut-colour` deals the same one, and the table calls last coup."""
    faces = tmp_path / "faces"
    shutil.copytree(synth_faces, faces)
    for cut in faces.glob("cut*"):
        cut.unlink()
    profile = tmp_path / "p.npz"
    assert main(["enroll", str(faces), "--out", str(profile), "--views", "6",
                 "--cut-colour", "#2060d0"]) == 0
    err = capsys.readouterr().err
    assert "note: the cut card: a plain card of #2060d0, drawn" in err
    assert "enrolled 52 cards and back, cut, empty" in err
    assert "no cut*.png sample" not in err and "cut card (cut.png)" not in err
    shoe = tmp_path / "shoe.txt"
    shoe.write_text("AS 2C 2H 3D CUT 4H 5D KH KD 7S 8C\n")
    assert main(["deal", str(shoe), "--json"]) == 0
    dealt = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    status = main(["simulate", "--json", "--shoe", str(shoe), "--seed", "3", "--profile",
                   str(profile), "--cut-colour", "32,96,208"])
    out, err = capsys.readouterr()
    simulated = [json.loads(line) for line in out.splitlines()]
    assert simulated.pop()["event"] == "stats"
    assert (status, simulated) == (0, dealt)
    assert any(e["event"] == "cut_card" for e in simulated)
    assert "warning" not in err
    # The simulator's own yellow cut card is not the profile's: said before the shoe starts.
    status = main(["simulate", "--json", "--shoe", str(shoe), "--seed", "3", "--profile",
                   str(profile)])
    assert status != 0
    assert "does not read the shoe's cut card in place" in capsys.readouterr().err


def test_a_cut_card_colour_beside_a_picture_of_one_is_refused(synth_faces, tmp_path, capsys):
    """Which of the two is the shoe's cut card cannot be told: refused before any work."""
    assert (synth_faces / "cut.png").exists()
    assert main(["enroll", str(synth_faces), "--out", str(tmp_path / "p.npz"),
                 "--cut-colour", "red"]) == 2
    err = capsys.readouterr().err
    assert "has a picture of the cut card already (cut*.png): give either it or a cut card " \
        "colour, not both" in err
    assert not (tmp_path / "p.npz").exists()
    # From a recording whose order names the cut card, before the recording is opened.
    assert main(["enroll", "--recording", str(tmp_path / "no-such-recording"), "--order",
                 "new-deck CUT", "--out", str(tmp_path / "p.npz"), "--cut-colour", "red"]) == 2
    assert capsys.readouterr().err == ("sabot enroll: --cut-colour: the order names the cut "
                                       "card (CUT), which the recording shows: give one or "
                                       "the other\n")


@pytest.mark.parametrize("command", ["enroll", "simulate"])
def test_a_cut_card_colour_not_understood_names_the_text_and_the_forms(command, capsys):
    with pytest.raises(SystemExit) as exit_:
        main([command, "--cut-colour", "mauve", *(["x", "--out", "p.npz"]
                                                  if command == "enroll" else [])])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert "argument --cut-colour: colour 'mauve': give a name (black, blue," in err
    assert "#rrggbb (#d02030) or red,green,blue (208,32,48)" in err


@pytest.mark.parametrize("whole_faces, recording, calibrate", [
    (52, None, False), (0, None, True), (0, "rec", True)])
def test_the_to_do_list_offers_calibrate_only_where_a_window_was_set(whole_faces, recording,
                                                                    calibrate):
    """A trial (stop 61): enrolled from whole card faces, whose windows enrolment cuts
    itself, the operator was told to set the window with `sabot calibrate`."""
    from types import SimpleNamespace

    from controller.cli.enroll import _verdict

    result = SimpleNamespace(
        profile=SimpleNamespace(held_accepted=0.95, held_views=800), notes=[],
        surfaces_read={"cut": 0.9}, whole_faces=whole_faces)
    lines = _verdict(result, ["back", "cut"], SimpleNamespace(sheet=None, recording=recording))
    low = next(line for line in lines if "fewer than 99%" in line)
    assert ("sabot calibrate" in low) == calibrate
    assert "take the samples again" in low


def test_the_suit_checks_least_lead_is_said_as_a_lead_or_a_trail():
    """A trial (stop 61): "must lead the other three by -0.04" read as a typo."""
    from controller.cli.enroll import _suit_lead

    assert _suit_lead(0.19) == "must lead the other three by 0.19"
    assert _suit_lead(-0.04) == "may trail the nearest of the other three by 0.04 at most"
