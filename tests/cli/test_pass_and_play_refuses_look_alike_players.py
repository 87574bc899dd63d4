"""`pass-and-play --players` refuses two names that would be one name at the table, by the
core's own look-alike rule (`name_key`, SPEC.md 10.5), before the table starts, and names
both: a case variant ("Ann,ann") and a look-alike ("Ian,lan": capital I and small L) alike.
The new-table form (`t` in the lobby) says the same. Before, only case variants were refused
and "lan" was silently seated as "lan 2"."""

from __future__ import annotations

import subprocess

import pytest

from p2pdice.core.rules import TableKind
from p2pdice.ui.hostform import HostForm
from tests.support.procs import p2pdice


@pytest.mark.parametrize(
    ("players", "named"),
    [
        ("Ann,ann", '"Ann" and "ann" look alike'),
        ("Ian,lan", '"Ian" and "lan" look alike'),
        ("Hana,Bob,\uff28\uff41\uff4e\uff41", '"Hana" and "\uff28\uff41\uff4e\uff41" look alike'),
        ("Ann,Ann", '"Ann" twice'),
    ],
)
def test_the_command_refuses_look_alike_players_naming_both(players: str, named: str) -> None:
    proc = subprocess.run(
        p2pdice("pass-and-play", "--players", players), capture_output=True, text=True,
        timeout=30, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert f"--players: two players have the same name: {named}" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def test_the_new_table_form_refuses_look_alike_players_naming_both() -> None:
    form = HostForm(kind=TableKind.PASS_AND_PLAY)
    form.values["players"] = "Ian, lan"
    assert form.check() is None
    assert form.error == 'two players have the same name: "Ian" and "lan" look alike'
    form.values["players"] = "Ian, Bob"
    assert form.check() is not None


LONG = "Bartholomew-Maximilian-Fitzgerald"


def test_a_name_too_long_to_keep_whole_is_refused_not_cut() -> None:
    """Cut to 24 characters, two long names could become one ("two players have the same
    name" for names typed differently): the longer one is named and refused instead."""
    proc = subprocess.run(
        p2pdice("pass-and-play", "--players", f"Ann,{LONG}"), capture_output=True, text=True,
        timeout=30, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert proc.stderr.strip().endswith(
        f"--players: '{LONG}' has 33 characters; a name may have at most 24: shorten it"
    ), proc.stderr
    form = HostForm(kind=TableKind.PASS_AND_PLAY)
    form.values["players"] = f"Ann, {LONG}"
    assert form.check() is None and form.error is not None and LONG in form.error
