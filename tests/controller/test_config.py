import tomllib

import pytest

from controller.config import SCHEMA, example_toml, load_config, validate
from controller.errors import ConfigError


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
    ({"table": {"decks": True}}, "[table] decks must be an integer"),
    ({"table": {"decks": 13}}, "[table] decks must be 1-12"),
    ({"table": {"style": "C"}}, "[table] style must be one of A, B"),
    ({"camera": {"window": [1, 2, 3]}}, "[camera] window must be four"),
    ({"camera": {"source": "webcam"}}, "[camera] source must be one of"),
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
