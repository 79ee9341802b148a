"""bench.invent: designs the reader was never developed on, drawn from a seed."""

import cv2
import numpy as np
import pytest

from bench import invent
from vision.cards import ALL_CARDS
from vision.decks import load_deck


def _ink_box(face: np.ndarray, paper: tuple[int, int, int]) -> tuple[int, int, int, int]:
    differs = np.abs(face[..., :3].astype(int) - np.array(paper)).max(axis=2) > 40
    return cv2.boundingRect(cv2.findNonZero(differs.astype(np.uint8)))


def test_a_seed_always_draws_the_same_design():
    assert invent.invent(5, 2) == invent.invent(5, 2)
    style = invent.invent(5, 2)
    assert np.array_equal(invent.draw_face(style, "QH"), invent.draw_face(style, "QH"))


def test_seeds_draw_designs_that_differ():
    faces = [invent.draw_face(invent.invent(seed), "7C") for seed in range(6)]
    assert all(not np.array_equal(faces[0], other) for other in faces[1:])
    assert len({invent.invent(seed).name for seed in range(6)}) == 6


@pytest.mark.parametrize("seed", range(40))
def test_every_index_fits_the_reading_windows_index_zone(seed):
    style = invent.invent(seed)
    height = round(invent.WIDTH * style.aspect)
    for code in ("10H", "QS", "AD", "8C"):
        paper = np.full((height, invent.WIDTH, 3), style.paper, np.uint8)
        invent._index(paper, style, code[:-1], code[-1])
        x, y, w, h = _ink_box(paper, style.paper)
        assert w > 0.03 * invent.WIDTH and h > 0.05 * height  # something printed
        assert x + w <= invent.INDEX_END[0] * invent.WIDTH + 2
        assert y + h <= invent.INDEX_END[1] * height + 2


def test_without_truetype_fonts_designs_use_opencvs_faces(monkeypatch):
    monkeypatch.setattr(invent, "truetype_fonts", lambda: ())
    styles = [invent.invent(seed) for seed in range(12)]
    assert all(style.font in invent.HERSHEY for style in styles)
    assert all(style.letters != invent.LETTERS["russian"] for style in styles)
    assert invent.draw_face(styles[0], "KD").shape[2] == 4


def test_a_written_design_loads_as_a_deck_with_its_back_and_jokers(tmp_path):
    folder = invent.write_design(invent.invent(3), tmp_path)
    deck = load_deck(str(folder))
    assert all(code in deck.cards for code in ALL_CARDS)
    assert {"BACK", "JOKER", "JOKER2"} <= set(deck.cards)
    back = deck.image("BACK")
    assert back.shape[1] == 300 and back[..., 3].max() == 255


def test_the_command_writes_designs_and_their_sheet(tmp_path, monkeypatch, capsys):
    sheet = tmp_path / "sheet.png"
    monkeypatch.setattr("sys.argv", ["bench.invent", str(tmp_path / "out"), "--count", "2",
                                     "--seed", "9", "--sheet", str(sheet)])
    assert invent.main() == 0
    assert len(capsys.readouterr().out.splitlines()) == 2
    assert len(list((tmp_path / "out").iterdir())) == 2
    assert cv2.imread(str(sheet)).shape[0] == 2 * 160


def test_the_command_refuses_no_designs(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr("sys.argv", ["bench.invent", str(tmp_path), "--count", "0"])
    with pytest.raises(SystemExit) as stop:
        invent.main()
    assert stop.value.code == 2
    assert "--count must be at least 1, not 0" in capsys.readouterr().err


def test_bench_vision_refuses_a_negative_number_of_invented_designs(monkeypatch, capsys):
    from bench import vision

    monkeypatch.setattr("sys.argv", ["bench.vision", "--invent", "-1"])
    with pytest.raises(SystemExit) as stop:
        vision.main()
    assert stop.value.code == 2
    assert "--invent must be a number of designs, not -1" in capsys.readouterr().err


def test_bench_vision_reads_the_designs_it_invents(monkeypatch, mocker):
    """`--invent N` writes N designs and hands their folders, in name order, to the run."""
    from bench import vision

    run = mocker.patch.object(vision, "_run", return_value=0)
    monkeypatch.setattr("sys.argv", ["bench.vision", "--invent", "2", "--invent-seed", "4"])
    assert vision.main() == 0
    designs = run.call_args.args[1]
    assert [d.name for d in designs] == [invent.invent(4, 0).name, invent.invent(5, 1).name]
