"""Profiles round-trip, and a damaged one is refused naming what is wrong."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from vision.errors import ProfileError
from vision.profile import PROFILE_VERSION, STAGES, load_profile, save_profile
from vision.reader import Reader


def test_a_profile_round_trips(tmp_path, vector_profile):
    again = load_profile(save_profile(vector_profile, tmp_path / "p.npz"))
    assert np.array_equal(again.card_views, vector_profile.card_views)
    assert list(again.card_classes) == list(vector_profile.card_classes)
    assert set(again.thresholds) == set(STAGES)
    for stage in STAGES:
        assert again.thresholds[stage] == pytest.approx(vector_profile.thresholds[stage])
    # The models' bounds, and the reader clamps with them (`Model.embed`).
    for name in ("card_low", "card_high", "kind_low", "kind_high"):
        assert np.array_equal(getattr(again, name), getattr(vector_profile, name)), name
    for name in (f.name for f in dataclasses.fields(vector_profile)
                 if f.name.startswith(("suit_", "kind_pair_", "surface_"))):
        assert np.array_equal(getattr(again, name), getattr(vector_profile, name)), name
    assert again.empty_edges == pytest.approx(vector_profile.empty_edges)
    reader = Reader(again)
    assert reader._registration.suit_box == vector_profile.suit_place
    assert np.array_equal(reader._cards.low, again.card_low)
    assert np.array_equal(reader._kinds.high, again.kind_high)


@pytest.mark.parametrize("change, message", [
    (lambda p: {"pose_floor": float("nan")}, "pose_floor is not a finite number"),
    (lambda p: {"thresholds": p.thresholds | {"card": (float("nan"), 0.1)}},
     "thresholds holds values that are not finite"),
    # A negative least lead would let the close pairs' rescue accept a card that its own
    # rival's direction says is the rival (the reader's veto takes a lead below 0 as that).
    (lambda p: {"thresholds": p.thresholds | {"pair": (-0.1, 0.0)}},
     "the pair stage's least lead is below 0"),
    (lambda p: {"card_mean": p.card_mean * np.nan}, "card_mean holds values that are not"),
    (lambda p: {"card_labels": p.card_labels[::-1].copy()}, "labels do not index every class"),
    (lambda p: {"card_views": p.card_views[:, :3]}, "arrays do not fit together"),
    (lambda p: {"kind_low": p.kind_low[:5]}, "kind model's arrays do not fit together"),
    # Bounds the wrong way round would clamp every window's feature to one value.
    (lambda p: {"card_high": p.card_low - 1}, "card_low is above card_high"),
    (lambda p: {"card_low": p.card_low * np.nan}, "card_low holds values that are not"),
    (lambda p: {"templates": p.templates[0]}, "templates has 2 dimensions, not 3"),
    (lambda p: {"likeness": p.likeness[:10]}, "likeness does not have one row per card"),
    (lambda p: {"pair_index": p.pair_index + 60}, "pairs of cards do not fit the card model"),
    (lambda p: {"pair_directions": p.pair_directions[:, :3]},
     "pairs of cards do not fit the card model"),
    (lambda p: {"pair_halves": p.pair_halves * np.nan}, "pair_halves holds values that are not"),
    (lambda p: {"likeness_floors": p.likeness_floors[:51]}, "not one floor per card"),
    (lambda p: {"likeness_floors": p.likeness_floors + 0.5}, "not one floor per card"),
    (lambda p: {"likeness_floors": p.likeness_floors - 3}, "not one floor per card"),
    (lambda p: {"likeness_floors": p.likeness_floors * np.nan},
     "likeness_floors holds values that are not"),
    # Found by the fault campaign's fuzzer (`bench.faults`), each a traceback before: the
    # index search with no template, templates of whole numbers OpenCV does not resize, a
    # value finite in float64 but not in the reader's float32.
    (lambda p: {"templates": p.templates[:0]}, "templates are not pictures of the index"),
    (lambda p: {"templates": p.templates[:, :, :40]}, "templates are not pictures of the in"),
    (lambda p: {"templates": p.templates.astype(np.int64)},
     "templates holds int64 values, not real numbers"),
    (lambda p: {"card_views": p.card_views.astype(np.float64) * 1e300},
     "card_views holds values that are not finite"),
    (lambda p: {"card_labels": p.card_labels.astype(np.float32)},
     "card_labels holds float32 values, not whole numbers"),
    # The suit's box is pictured from the zone: outside it, or of no size, it shows nothing.
    (lambda p: {"suit_box": np.float32([60, 20, 24, 24])}, "suit_box is not a box inside"),
    (lambda p: {"suit_box": np.float32([8, 20, 0, 24])}, "suit_box is not a box inside"),
    (lambda p: {"suit_box": np.float32([8, 20, 24])}, "suit_box is not a box inside"),
    (lambda p: {"suit_box": np.float32([[8, 20, 24, 24]])}, "suit_box has 2 dimensions"),
    (lambda p: {"suit_scale": p.suit_scale[:10]}, "the suit check's arrays .suit_.. do not"),
    (lambda p: {"suit_pair_index": p.suit_pair_index[:5]}, "the suit check's arrays"),
    (lambda p: {"suit_pair_index": p.suit_pair_index + 4}, "the suit check's arrays"),
    # Found in review: a pair twice (another never compared), or the wrong way round.
    (lambda p: {"suit_pair_index": np.repeat(p.suit_pair_index[:1], 6, axis=0)},
     "the suit check's arrays"),
    (lambda p: {"suit_pair_index": p.suit_pair_index[:, ::-1].copy()},
     "the suit check's arrays"),
    (lambda p: {"suit_pair_halves": -p.suit_pair_halves}, "suit_pair_halves holds values that"),
    (lambda p: {"suit_high": p.suit_low - 1}, "suit_low is above suit_high"),
    (lambda p: {"suit_pair_directions": p.suit_pair_directions[:, :7]},
     "the suit check's arrays"),
    (lambda p: {"suit_mean": p.suit_mean * np.nan}, "suit_mean holds values that are not"),
    (lambda p: {"thresholds": p.thresholds | {"suit": (float("inf"), 0.0)}},
     "thresholds holds values that are not finite"),
    # The surfaces' directions: every two kinds once, the lower first, as wide as the kind
    # model's space; a negative half or floor turns the lead round.
    (lambda p: {"kind_pair_index": p.kind_pair_index[:3]}, "surfaces' directions .kind_pair"),
    (lambda p: {"kind_pair_index": p.kind_pair_index[:, ::-1].copy()},
     "surfaces' directions"),
    (lambda p: {"kind_pair_directions": p.kind_pair_directions[:, :9]},
     "surfaces' directions"),
    (lambda p: {"kind_pair_middles": p.kind_pair_middles[:2]}, "surfaces' directions"),
    (lambda p: {"kind_pair_halves": -p.kind_pair_halves}, "kind_pair_halves holds values that"),
    (lambda p: {"kind_pair_index": p.kind_pair_index.astype(np.float32)},
     "kind_pair_index holds float32 values, not whole numbers"),
    (lambda p: {"thresholds": p.thresholds | {"surface:cut": (-0.5, 0.75)}},
     "the surface:cut stage's least lead is below 0"),
    (lambda p: {"thresholds": p.thresholds | {"surface:empty": (0.5, 0.0)}},
     "the surface:empty stage's least score is not above 0 and at most 1"),
    # The surfaces' stroke ceilings: a share of the window for each of back, cut, empty.
    (lambda p: {"surface_strokes": np.float32([0.2, 0.01])},
     "surface_strokes is not a share from 0 to 1 for each of back, cut, empty"),
    (lambda p: {"surface_strokes": np.float32([0.2, -0.01, 0.01])},
     "surface_strokes is not a share from 0 to 1"),
    (lambda p: {"surface_strokes": np.float32([0.2, 1.5, 0.01])},
     "surface_strokes is not a share from 0 to 1"),
    (lambda p: {"surface_strokes": np.float32([[0.2, 0.01, 0.01]])},
     "surface_strokes has 2 dimensions"),
    # The empty window's edge ceiling: a step in log light, above 0 and at most white's.
    (lambda p: {"empty_edges": 0.0}, "empty_edges is not a step from 0 to 3.49"),
    (lambda p: {"empty_edges": float("nan")}, "empty_edges is not a step from 0"),
    (lambda p: {"empty_edges": 7.0}, "empty_edges is not a step from 0"),
])
def test_a_damaged_profile_is_refused(tmp_path, vector_profile, change, message):
    damaged = dataclasses.replace(vector_profile, **change(vector_profile))
    path = save_profile(damaged, tmp_path / "bad.npz")
    with pytest.raises(ProfileError, match=message):
        load_profile(path)


def _saved_with(profile, path, change) -> object:
    """`profile` saved to `path`, then its arrays rewritten by `change` (a dict -> None)."""
    path = save_profile(profile, path)
    with np.load(path) as data:
        arrays = dict(data)
    change(arrays)
    np.savez(path.open("wb"), **arrays)
    return path


@pytest.mark.parametrize("change", [
    lambda arrays: arrays.update(version=np.float64(np.inf)),  # OverflowError before
    lambda arrays: arrays.update(held_wrong=np.float64(np.inf)),
])
def test_a_profile_whose_whole_numbers_are_infinite_is_refused(tmp_path, vector_profile,
                                                                change):
    path = _saved_with(vector_profile, tmp_path / "p.npz", change)
    with pytest.raises(ProfileError, match="not a Sabot profile"):
        load_profile(path)


def test_a_profile_whose_compressed_bytes_are_damaged_is_refused(tmp_path, vector_profile):
    """A byte of the deflated data changed: zlib's own error, a traceback before (found by
    the fault campaign's fuzzer)."""
    path = save_profile(vector_profile, tmp_path / "p.npz")
    raw = bytearray(path.read_bytes())
    failures = set()
    for at in range(200, len(raw) - 200, len(raw) // 40):
        damaged = bytearray(raw)
        damaged[at] ^= 0x5A
        path.write_bytes(bytes(damaged))
        try:
            load_profile(path)
        except ProfileError as error:
            failures.add(str(error).split(" (")[0])
    assert failures == {f"{path}: not a Sabot profile"}


def test_a_profile_whose_array_header_is_cut_short_is_refused(tmp_path, vector_profile):
    """An array's header is a Python literal: cut short, numpy's parser raised tokenize's
    TokenError (found by the fault campaign's fuzzer, one damaged byte in 3,000)."""
    import zipfile

    path = save_profile(vector_profile, tmp_path / "p.npz")
    with zipfile.ZipFile(path) as whole:
        members = {name: whole.read(name) for name in whole.namelist()}
    header = b"{'descr': '<i4', 'fortran_order': False, 'shape': (\n"
    header += b" " * (63 - len(header) % 64) + b"\n"
    members["version.npy"] = b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header
    with zipfile.ZipFile(path, "w") as whole:
        for name, data in members.items():
            whole.writestr(name, data)
    with pytest.raises(ProfileError, match="not a Sabot profile"):
        load_profile(path)


def test_an_old_profile_asks_to_enrol_again(tmp_path, vector_profile):
    path = _saved_with(vector_profile, tmp_path / "old.npz",
                       lambda arrays: arrays.update(version=np.int32(2)))
    wanted = f"profile version 2, expected {PROFILE_VERSION} .enrol the design"
    with pytest.raises(ProfileError, match=wanted):
        load_profile(path)


def test_a_profile_of_a_newer_sabot_asks_to_update_sabot(tmp_path, vector_profile):
    """Enrolling again with the older Sabot is the other way out, not the only one."""
    path = _saved_with(vector_profile, tmp_path / "new.npz",
                       lambda arrays: arrays.update(version=np.int32(PROFILE_VERSION + 1)))
    with pytest.raises(ProfileError, match=r"made by a newer Sabot: .*update Sabot"):
        load_profile(path)


def test_a_profile_whose_version_is_text_says_so(tmp_path, vector_profile):
    path = _saved_with(vector_profile, tmp_path / "text.npz",
                       lambda arrays: arrays.update(version=np.array("ten")))
    with pytest.raises(ProfileError, match=r"not a Sabot profile \(its version is not a "):
        load_profile(path)


def test_a_file_of_python_objects_is_no_profile_and_no_advice_to_load_it_unsafely(tmp_path):
    """numpy's own message for it suggests `allow_pickle`, loading untrusted data."""
    path = tmp_path / "objects.npz"
    np.savez(path, version=np.array([{"a": 1}], dtype=object))
    with pytest.raises(ProfileError) as refused:
        load_profile(path)
    assert "pickle" not in str(refused.value)
    assert "not a Sabot profile (not an archive of arrays" in str(refused.value)


def test_files_that_are_no_profile_say_what_they_are_in_the_users_words(tmp_path,
                                                                         vector_profile):
    """Not numpy's words ("'version is not a file in the archive'", "File is not a zip
    file", an ndarray without the context manager protocol): what the file is instead."""
    np.save(tmp_path / "one.npy", np.arange(3))
    (tmp_path / "one.npy").rename(tmp_path / "one.npz")
    np.savez(tmp_path / "other.npz", a=np.arange(3))
    whole = save_profile(vector_profile, tmp_path / "whole.npz").read_bytes()
    (tmp_path / "cut.npz").write_bytes(whole[: len(whole) // 2])
    (tmp_path / "folder.npz").mkdir()
    expected = {
        "one.npz": "not a Sabot profile (one array, not the archive of arrays",
        "other.npz": "not a Sabot profile (an archive of arrays, but without the version",
        "cut.npz": "not a Sabot profile (a damaged or cut-short archive)",
        "folder.npz": "a directory, not a profile",
    }
    (tmp_path / "empty.npz").write_bytes(b"")
    expected["empty.npz"] = "not a Sabot profile (an empty file)"
    for name, words in expected.items():
        with pytest.raises(ProfileError) as refused:
            load_profile(tmp_path / name)
        assert words in str(refused.value), name
        assert "zip" not in str(refused.value) and "archive'" not in str(refused.value)


def test_a_profile_that_cannot_be_read_is_not_called_damaged(tmp_path, vector_profile, mocker):
    """The file's permissions, or the storage, refused: the file itself may be fine."""
    path = save_profile(vector_profile, tmp_path / "p.npz")
    mocker.patch("numpy.load", side_effect=PermissionError(13, "Permission denied"))
    with pytest.raises(ProfileError, match=r"p.npz: cannot read the profile \(Permission "
                                           r"denied\)"):
        load_profile(path)


def test_a_profile_without_the_thresholds_of_every_stage_is_refused(tmp_path, vector_profile):
    def drop_last_stage(arrays):
        arrays["stages"] = arrays["stages"][:-1]
        arrays["thresholds"] = arrays["thresholds"][:-1]

    path = _saved_with(vector_profile, tmp_path / "p.npz", drop_last_stage)
    with pytest.raises(ProfileError, match="thresholds are not those of the stages"):
        load_profile(path)


def test_each_card_has_a_likeness_floor_of_its_own_between_half_the_design_s_and_it(
        tmp_path, vector_profile):
    """Learned from each card's own held-back views: not one floor copied 52 times."""
    floors = load_profile(save_profile(vector_profile, tmp_path / "p.npz")).likeness_floors
    design = vector_profile.likeness_floor
    assert floors.shape == (52,)
    assert np.all(floors <= design + 1e-6) and np.all(floors >= 0.5 * design - 1e-6)
    assert len(set(floors.tolist())) > 1
    assert np.array_equal(vector_profile.card_likeness_floors, floors.astype(np.float64))


def test_a_profile_without_its_per_card_floors_is_refused_naming_them(tmp_path,
                                                                   vector_profile):
    """Version 6 loaded without them (they were added after it was first written);
    a profile since version 7 always has them."""
    path = _saved_with(vector_profile, tmp_path / "older.npz",
                       lambda arrays: arrays.pop("likeness_floors"))
    with pytest.raises(ProfileError, match="lacks likeness_floors .enrol the design again"):
        load_profile(path)


def test_the_reader_holds_each_card_to_its_own_likeness_floor(vector_profile, vector_deck):
    """A card whose own views vary (a court card's art beside its index) has a floor of its
    own: the vector design's JH was refused at 0.52-0.58 against the design's 0.65. The
    same JH window is refused or read by its own floor alone, the others' unchanged."""
    from vision.reader import Reader
    from vision.synth import render_window

    codes = [str(c) for c in vector_profile.card_classes[:52]]
    window = render_window(vector_deck, "JH")

    def read_with_jh_floor(floor: float):
        floors = vector_profile.card_likeness_floors.astype(np.float32)
        floors[codes.index("JH")] = floor
        return Reader(dataclasses.replace(vector_profile, likeness_floors=floors)).read(window)

    refused = read_with_jh_floor(1.01)  # nothing looks that much like it
    assert refused.kind == "unknown" and "(needs 1.01)" in refused.reason
    assert read_with_jh_floor(-1.0).card == "JH"
