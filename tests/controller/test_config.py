import re
import tomllib
from pathlib import Path

import pytest

from controller.errors import ConfigError
from controller.service.config import SCHEMA, example_toml, load_config, set_camera_window, validate


def test_example_config_documents_every_key_and_loads(tmp_path):
    text = example_toml()
    for section, keys in SCHEMA.items():
        assert f"[{section}]" in text
        for name in keys:
            assert f"\n{name} = " in text or f"[{section}.{name}]" in text
    path = tmp_path / "config.toml"
    path.write_text(text)
    config = load_config(str(path))
    assert config["table"]["decks"] == 8 and config["serial"]["baud"] == 115200


def test_repository_example_config_is_in_step_with_the_schema():
    with open("config.example.toml", "rb") as handle:
        assert validate(tomllib.load(handle)) is not None
    with open("config.example.toml") as handle:
        assert handle.read() == example_toml()


@pytest.mark.parametrize("raw, message", [
    ({"tabel": {}}, "unknown section [tabel]"),
    ({"table": {"deck": 8}}, "unknown key 'deck' in [table]"),
    ({"table": {"decks": "eight"}}, "[table] decks must be an integer, not 'eight'"),
    ({"table": {"decks": True}}, "[table] decks must be an integer, not true"),  # TOML's word
    # A key above every section heading (a trial, stop 52: "unknown section [decks]").
    ({"decks": 8}, "decks = 8 is outside any section: it belongs under [table]"),
    ({"fps": 30}, "fps = 30 is outside any section: it belongs under [camera]"),
    ({"colour": "red"}, "'colour' is outside any section, and no section has such a key"),
    ({"table": {"decks": 13}}, "[table] decks must be 1-12"),
    ({"table": {"style": "C"}}, "[table] style must be one of A, B"),
    ({"camera": {"window": [1, 2, 3]}}, "[camera] window must be four"),
    ({"camera": {"source": "webcam"}}, "[camera] source must be one of"),
    # Issue 9 / 12: values that used to be accepted and then broke the service.
    ({"camera": {"stale_after_s": float("inf")}}, "[camera] stale_after_s must be 0.05-60"),
    ({"camera": {"stale_after_s": float("nan")}}, "[camera] stale_after_s must be 0.05-60"),
    ({"camera": {"window": [True, 0, 128, 200]}}, "[camera] window must be four integers"),
    ({"camera": {"width": 640, "height": 480, "window": [600, 0, 128, 200]}},
     "[camera] window must be inside the 640 x 480 frame"),
    ({"camera": {"fps": float("nan")}}, "[camera] fps must be 0"),
    ({"camera": {"width": 8}}, "[camera] width must be 0"),
    ({"camera": {"source": "picamera2", "exposure_us": 5, "analogue_gain": 2}},
     "[camera] exposure_us must be 0 (automatic) or 10-1000000 microseconds"),
    ({"camera": {"source": "picamera2", "exposure_us": 500, "analogue_gain": float("nan")}},
     "[camera] analogue_gain must be 0 (automatic) or 1-16"),
    ({"camera": {"source": "picamera2", "exposure_us": 2000}},
     "[camera] analogue_gain must be set as well (the two fix the exposure together"),
    ({"camera": {"source": "v4l2", "exposure_us": 2000, "analogue_gain": 2}},
     "[camera] exposure_us must be 0 unless source = 'picamera2'"),
    ({"journal": {"path": ""}}, "[journal] path must be a file path"),
    ({"journal": {"path": "  "}}, "[journal] path must be a file path"),
    ({"serial": {"baud": 0}}, "[serial] baud must be a UART rate"),
    ({"gpio": {"debounce_ms": -5}}, "[gpio] debounce_ms must be 0-1000"),
    ({"table": {"id": ""}}, "[table] id must be 1-64 letters"),
    ({"table": {"id": "a/b"}}, "[table] id must be 1-64 letters"),
    # The panel's wiring is checked with the file, not when the service opens the pins.
    ({"gpio": {"lamps": {"fault": 99}}}, "[gpio] lamps.fault: BCM pin 99 is out of range"),
    ({"gpio": {"lamps": {"fault": 4, "tie": 4}}}, "[gpio] BCM pin 4 is used by both"),
    ({"gpio": {"lamps": {"fault": 23}}},
     "[gpio] BCM pin 23 is used by both 'lamps.fault' and 'buttons.no_more_bets'"),
    ({"gpio": {"lamps": {"fault": 4, "flash": 5}}}, "[gpio] lamps.flash: no such lamp"),
    ({"gpio": {"lamps": {"tie": 5}}}, "[gpio] lamps.fault: missing"),
    ({"gpio": {"buttons": {"no_more_bets": "x"}}}, "[gpio] buttons.no_more_bets: pin must be"),
])
def test_wrong_keys_and_values_name_the_key_and_file(raw, message):
    with pytest.raises(ConfigError) as caught:
        validate(raw, "/etc/sabot/config.toml")
    assert message in str(caught.value)
    assert str(caught.value).startswith("/etc/sabot/config.toml: ")


def test_unreadable_config_files(tmp_path):
    with pytest.raises(ConfigError, match="no such config file"):
        load_config(str(tmp_path / "missing.toml"))
    bad = tmp_path / "bad.toml"
    bad.write_text("[table\n")
    with pytest.raises(ConfigError, match="bad.toml: not valid TOML"):
        load_config(str(bad))


DOCS = ("docs/deploy.md", "docs/rig.md", "README.md")


@pytest.mark.parametrize("doc", DOCS)
def test_every_config_example_in_the_docs_is_accepted(doc):
    """Issue 9: docs/deploy.md wrote keys the loader refused (kind, baudrate, stale_after)."""
    blocks = re.findall(r"```toml\n(.*?)```", Path(doc).read_text(), re.S)
    assert blocks or doc == "README.md"
    for block in blocks:
        validate(tomllib.loads(block), f"{doc} example")


def test_the_camera_size_and_rate_reach_the_camera():
    from controller.service.main import camera_options

    camera = validate({"camera": {"source": "v4l2", "width": 1280, "height": 720,
                                  "fps": 90}})["camera"]
    assert camera_options(camera) == ("v4l2", {"stale_after": 1.0, "device": "/dev/video0",
                                               "width": 1280, "height": 720, "fps": 90})
    default = validate({"camera": {"source": "v4l2"}})["camera"]
    assert "width" not in camera_options(default)[1]


def test_calibrate_sets_only_the_window_and_keeps_comments_and_layout(tmp_path):
    config = tmp_path / "config.toml"
    text = ('# sabot\n[table]\nid = "t7"  # the table\n\n[camera]\nsource = "v4l2"\n'
            'window = [\n  1, 2,\n  3, 4,\n]\nstale_after_s = 2.0  # seconds\n\n'
            '[serial]\nport = "/dev/x"\n')
    config.write_text(text)
    set_camera_window(str(config), (10, 20, 30, 40))
    updated = config.read_text()
    assert tomllib.loads(updated) == {
        "table": {"id": "t7"},
        "camera": {"source": "v4l2", "window": [10, 20, 30, 40], "stale_after_s": 2.0},
        "serial": {"port": "/dev/x"},
    }
    assert updated.startswith('# sabot\n[table]\nid = "t7"  # the table\n')
    assert "stale_after_s = 2.0  # seconds" in updated


def test_calibrate_adds_the_camera_table_or_creates_the_file(tmp_path):
    config = tmp_path / "etc" / "config.toml"
    with pytest.raises(ConfigError, match="no such directory"):  # a mistyped path
        set_camera_window(str(config), (1, 2, 3, 4))
    assert not config.parent.exists()
    config.parent.mkdir()
    set_camera_window(str(config), (1, 2, 3, 4))
    assert tomllib.loads(config.read_text()) == {"camera": {"window": [1, 2, 3, 4]}}
    other = tmp_path / "other.toml"
    other.write_text('[table]\nid = "x"\n')
    set_camera_window(str(other), (5, 6, 7, 8))
    assert tomllib.loads(other.read_text()) == {"table": {"id": "x"},
                                                "camera": {"window": [5, 6, 7, 8]}}


def test_calibrate_leaves_an_invalid_config_alone(tmp_path):
    config = tmp_path / "config.toml"
    config.write_text("[camera\nwindow = 3\n")
    with pytest.raises(ConfigError, match="not valid TOML"):
        set_camera_window(str(config), (1, 2, 3, 4))
    assert config.read_text() == "[camera\nwindow = 3\n"


def test_the_surveillance_example_is_accepted_once_its_files_exist(tmp_path):
    """docs/surveillance.md's config: every key as it writes it (the TLS and password files
    it names are the deployment's, so they are made here)."""
    block = re.findall(r"```toml\n(.*?)```", Path("docs/surveillance.md").read_text(), re.S)[0]
    raw = tomllib.loads(block)
    for key in ("password_file", "ca_file", "cert_file", "key_file"):
        made = tmp_path / key
        made.write_text("x\n")
        raw["surveillance"][key] = str(made)
    config = validate(raw, "docs/surveillance.md example")
    assert config["surveillance"]["mqtt"].startswith("mqtts://")
    assert config["table"]["id"] == "baccarat-3"


def test_a_config_that_is_not_utf8_text_is_refused_naming_the_file(tmp_path):
    path = tmp_path / "config.toml"
    path.write_bytes(b"\xff\xfe AS\n")
    with pytest.raises(ConfigError, match=r"config.toml: not a TOML text file \(byte 0 is not"):
        load_config(str(path))


def test_a_lamps_table_replaces_the_default_wiring_whole():
    config = validate({"gpio": {"lamps": {"fault": 17}}})
    assert config["gpio"]["lamps"] == {"fault": 17}  # player_draw's default pin 17 is free


def test_relative_file_names_are_the_configs_folders_not_the_working_directorys(
        tmp_path, monkeypatch):
    """An engineer's trial (stop 47): `path = "rig.sqlite"` made the journal wherever the
    service was started (under systemd, /), and a relative profile was looked for there."""
    folder = tmp_path / "table"
    folder.mkdir()
    config = folder / "config.toml"
    config.write_text('[journal]\npath = "rig.sqlite"\n[camera]\nprofile = "decks/p.npz"\n'
                      'source = "http"\nurl = "http://127.0.0.1:1/x"\n'
                      '[serial]\nport = "/dev/ttyACM0"\n')
    monkeypatch.chdir(tmp_path)
    loaded = load_config(str(config.relative_to(tmp_path)))
    assert loaded["journal"]["path"] == str(folder / "rig.sqlite")
    assert loaded["camera"]["profile"] == str(folder / "decks" / "p.npz")
    assert loaded["serial"]["port"] == "/dev/ttyACM0"  # absolute: as written
    assert loaded["camera"]["url"] == "http://127.0.0.1:1/x"  # no file: as written
    assert loaded["journal"]["key"] == ""  # empty: the default beside the journal
