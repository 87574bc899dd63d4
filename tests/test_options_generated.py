"""Every table option is defined once, in core.rules (`Rules` fields and their `Option`,
and the presets): the command-line flags, --help, the host form (its fields, its defaults and
the preset's help), the help panel and the JSON schema are generated from it or must agree
with it (RULES.md R1: tests/core/test_rules_options.py), and the default CPU level is the
bots' (bots.names.DEFAULT_LEVEL). Adding an option that one of them misses fails here."""

from __future__ import annotations

import argparse
import json
from typing import Any

import pytest

from p2pdice.bots.names import DEFAULT_LEVEL
from p2pdice.cli import build_parser
from p2pdice.cli.options import add_rules_options, rules_from_args
from p2pdice.core.errors import OptionError
from p2pdice.core.rules import OPTION_BY_KEY, OPTIONS, PRESETS, Option, Rules, TableKind
from p2pdice.ui.hostform import HostForm
from p2pdice.ui.panels import EXPLAINED, render_help
from tests.support.vectors import SCHEMAS


def _other_value(option: Option) -> Any:
    """A value other than the default that a standard table accepts."""
    return next(v for v in option.choices if v != option.default)


def _args(option: Option, value: Any) -> list[str]:
    if option.is_bool:
        return [option.flag if value else "--no-" + option.flag[2:]]
    return [option.flag, str(value)]


def _kind_for(option: Option) -> dict[str, Any]:
    """undo is refused on a standard table: try it on a practice one."""
    return {"kind": "practice"} if option.key == "undo" else {}


def test_the_options_are_the_rules_fields_in_order() -> None:
    assert [o.key for o in OPTIONS] == list(Rules().to_json())
    assert all(o.default == Rules().to_json()[o.key] for o in OPTIONS)


@pytest.mark.parametrize("option", OPTIONS, ids=lambda o: o.key)
def test_each_option_has_a_flag_that_sets_it(option: Option) -> None:
    parser = argparse.ArgumentParser()
    add_rules_options(parser)
    value = TableKind.PRACTICE.value if option.key == "kind" else _other_value(option)
    argv = _args(option, value)
    if option.key == "undo":
        argv += ["--kind", "practice"]
    rules = rules_from_args(parser.parse_args(argv))
    assert rules.to_json()[option.key] == value


@pytest.mark.parametrize("option", OPTIONS, ids=lambda o: o.key)
def test_help_names_each_option_with_its_default(option: Option) -> None:
    parser = argparse.ArgumentParser()
    add_rules_options(parser)
    text = " ".join(parser.format_help().split())
    if option.hidden:
        assert option.flag not in text  # accepted, but fixed by the command that opens it
        return
    line = text.split(option.flag, 2)[-1]
    assert option.help in line
    assert f"(default {option.shown(option.default) if option.is_bool else option.default})" in line


@pytest.mark.parametrize("kind", list(TableKind))
def test_the_host_form_offers_every_option_but_the_kind(kind: TableKind) -> None:
    fields = {f.key: f for f in HostForm(kind=kind).fields()}
    for option in OPTIONS:
        if option.hidden or (option.key == "undo" and kind == TableKind.STANDARD):
            assert option.key not in fields
            continue
        assert fields[option.key].choices == option.choices
        assert (fields[option.key].label, fields[option.key].help) == (option.label, option.help)


@pytest.mark.parametrize("option", OPTIONS, ids=lambda o: o.key)
def test_the_help_panel_shows_every_option_that_is_not_at_its_default(option: Option) -> None:
    base = Rules(**_kind_for(option))  # type: ignore[arg-type]
    changed = base.with_options(**{option.key: _other_value(option)})

    def text(rules: Rules) -> str:
        return "\n".join("".join(t for _, t in line) for line in render_help(rules, height=60))

    assert text(changed) != text(base)


def _rules_schema() -> dict[str, Any]:
    common = json.loads((SCHEMAS / "common.schema.json").read_text(encoding="utf-8"))
    return common["$defs"]["rules"]


def test_the_schema_has_each_option_with_its_range() -> None:
    schema = _rules_schema()
    assert list(schema["properties"]) == [o.key for o in OPTIONS]
    assert schema["required"] == [o.key for o in OPTIONS]
    for option in OPTIONS:
        assert schema["properties"][option.key] == option.json_schema(), option.key


def _command_help(*argv: str) -> str:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return " ".join(sub.choices[argv[0]].format_help().split())


def _undo_allowed(kind: TableKind) -> bool:
    try:
        Rules(kind=kind, undo=True)
    except OptionError:
        return False
    return True


@pytest.mark.parametrize("kind", list(TableKind))
def test_undo_starts_on_exactly_where_the_rules_allow_it(kind: TableKind) -> None:
    form = HostForm(kind=kind)
    assert form.values["undo"] is _undo_allowed(kind)
    assert form.rules().undo is _undo_allowed(kind)  # the form opens with rules that hold


@pytest.mark.parametrize("command", ["practice", "pass-and-play", "host"])
def test_help_says_the_undo_default_each_command_opens_with(command: str) -> None:
    kind = {"practice": TableKind.PRACTICE, "pass-and-play": TableKind.PASS_AND_PLAY}
    on = _undo_allowed(kind.get(command, TableKind.STANDARD))
    line = _command_help(command).split("--undo", 2)[-1]
    assert f"(default {'on' if on else 'off'})" in line


def test_the_preset_field_says_what_each_preset_sets() -> None:
    preset = next(f for f in HostForm().fields() if f.key == "preset")
    assert preset.choices == (*PRESETS, "custom")
    for part, (name, options) in zip(preset.help.split("; "), PRESETS.items(), strict=True):
        assert part.startswith(f"{name}: ")
        for key, value in options.items():
            option = OPTION_BY_KEY[key]
            assert f"{option.label.lower()} {option.shown(value)}" in part, (name, key)


def test_the_form_opens_on_the_preset_of_the_default_rules() -> None:
    defaults = Rules().to_json()
    [name] = [
        n for n, options in PRESETS.items() if all(defaults[k] == v for k, v in options.items())
    ]
    assert HostForm().values["preset"] == name


def test_the_default_cpu_level_is_the_bots_default() -> None:
    form = HostForm(kind=TableKind.PRACTICE)
    assert form.cpu() and set(form.cpu()) == {DEFAULT_LEVEL}
    assert f"{DEFAULT_LEVEL} (default)" in _command_help("practice")


def test_the_help_panel_explains_only_options_and_lists_every_other_one_by_label() -> None:
    assert EXPLAINED.issubset(o.key for o in OPTIONS)
    for option in OPTIONS:
        if option.key in EXPLAINED:
            continue
        value = _other_value(option)
        rules = Rules(**_kind_for(option)).with_options(**{option.key: value})  # type: ignore[arg-type]
        text = " ".join("".join(t for _, t in line) for line in render_help(rules, height=60))
        assert f"{option.label.lower()} {option.shown(value)}" in text.lower(), option.key
