"""`load_bot` turns every way a bot name can fail into a BotLoadError (one line at the CLI)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from p2pdice import cli
from p2pdice.bots.names import BOT_NAMES
from p2pdice.bots.registry import BotLoadError, load_bot


@pytest.fixture
def user_modules(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Write importable modules (name -> source) into a folder on sys.path."""
    monkeypatch.syspath_prepend(str(tmp_path))
    written: list[str] = []

    def write(name: str, source: str) -> None:
        (tmp_path / f"{name}.py").write_text(source)
        written.append(name)

    yield write
    for name in written:
        sys.modules.pop(name, None)


def test_every_builtin_name_loads_its_own_bot() -> None:
    assert BOT_NAMES == ("easy", "medium", "hard")
    for name in BOT_NAMES:
        assert load_bot(name).__name__ == name


@pytest.mark.parametrize("name", [":foo", ".x:y", "..x:y", "json:", ":"])
def test_empty_or_relative_module_names_are_refused(name: str) -> None:
    with pytest.raises(BotLoadError, match="module:callable"):
        load_bot(name)


def test_a_module_that_raises_on_import(user_modules) -> None:
    user_modules("p2pdice_test_boom", "raise RuntimeError('boom at import')\n")
    with pytest.raises(BotLoadError, match="RuntimeError: boom at import"):
        load_bot("p2pdice_test_boom:decide")


def test_a_module_with_a_syntax_error(user_modules) -> None:
    user_modules("p2pdice_test_broken", "def decide(view, rng)\n")
    with pytest.raises(BotLoadError, match="p2pdice_test_broken"):
        load_bot("p2pdice_test_broken:decide")


def test_a_bot_class_whose_constructor_raises(user_modules) -> None:
    user_modules(
        "p2pdice_test_cls",
        "class Bot:\n"
        "    def __init__(self):\n"
        "        raise KeyError('no config')\n"
        "    def decide(self, view, rng):\n"
        "        return None\n",
    )
    with pytest.raises(BotLoadError, match=r"Bot\(\) failed: KeyError"):
        load_bot("p2pdice_test_cls:Bot")


def test_missing_modules_and_attributes_still_say_cannot_load() -> None:
    with pytest.raises(BotLoadError, match="cannot load bot"):
        load_bot("no.such.module:bot")
    with pytest.raises(BotLoadError, match="cannot load bot"):
        load_bot("json:no_such_function")


@pytest.mark.parametrize("bot", [":foo", ".x:y"])
def test_join_with_a_bad_bot_is_a_one_line_error(
    bot: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["join", "--bot", bot, "127.0.0.1:9"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("p2pdice join: error: --bot: ") and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1
