"""bench.invent: designs the reader was never developed on, drawn from a seed."""

import cv2
import numpy as np
import pytest

from bench import invent
from vision.cards import ALL_CARDS
from vision.decks import Deck, load_deck
from vision.register import ZONE
from vision.synth import render_window


def test_a_seed_always_draws_the_same_design():
    assert invent.invent(5, 2) == invent.invent(5, 2)
    style = invent.invent(5, 2)
    assert np.array_equal(invent.draw_face(style, "QH"), invent.draw_face(style, "QH"))


def test_seeds_draw_designs_that_differ():
    faces = [invent.draw_face(invent.invent(seed), "7C") for seed in range(6)]
    assert all(not np.array_equal(faces[0], other) for other in faces[1:])
    assert len({invent.invent(seed).name for seed in range(6)}) == 6


@pytest.mark.parametrize("seed", [*range(30), 79, 92])
def test_every_index_lies_inside_the_reading_windows_index_zone(seed):
    """Drawn alone on its paper, each index is inside `register.ZONE` of the nominal window
    the renderer cuts, whatever the design's height: the window is in card widths (seeds 79
    and 92, tall designs, ran 2-3 px past it when the bound was taken of the card's height)."""
    style = invent.invent(seed)
    height = round(invent.WIDTH * style.aspect)
    for code in ("10H", "QS", "AD", "8C"):
        paper = np.full((height, invent.WIDTH, 3), style.paper, np.uint8)
        printed = paper.copy()
        invent._index(printed, style, code[:-1], code[-1])
        deck = Deck("t", {"BLANK": invent._with_outline(style, paper),
                          code: invent._with_outline(style, printed)})
        ink = np.abs(render_window(deck, code).astype(int)
                     - render_window(deck, "BLANK").astype(int)).max(axis=2) > 40
        x, y, w, h = cv2.boundingRect(cv2.findNonZero(ink.astype(np.uint8)))
        zx, zy, zw, zh = ZONE
        assert w > 8 and h > 15, (code, w, h)  # something printed
        assert zx <= x and zy <= y and x + w <= zx + zw and y + h <= zy + zh, (code, x, y, w, h)


def test_a_frame_runs_clear_of_the_index():
    framed = [s for s in map(invent.invent, range(60)) if s.frame]
    assert len(framed) > 10
    for style in framed:
        inset, _, width = style.frame
        line = (inset * invent.WIDTH + width) / invent.WIDTH
        assert style.at[0] - line >= 0.01 and style.at[1] * style.aspect - line >= 0.01


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
