"""The new-table form: presets, every table option, CPU seats and a password, as plain data.

The same form opens a hosted table, a practice table or a pass-and-play table (the kind is
fixed by how it was opened). Left/right cycle a choice, typing edits a text field. Each CPU
seat has its own field for how it plays (a difficulty or a fixed style), in the order the
CPUs sit down: after the people. Before the table opens, `summary()` lists the rules exactly
as they will be bound into the table's identity: after that they cannot change.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..bots.estimate import how_long
from ..bots.names import BOT_NAMES, DEFAULT_LEVEL, STYLE_NAMES
from ..core.clean import long_name_problem
from ..core.errors import OptionError
from ..core.names import same_name_problem
from ..core.rules import (
    MAX_SEATS,
    OPTION_BY_KEY,
    OPTIONS,
    PRESETS,
    Rules,
    TableKind,
    time_bank_default,
)
from .defaults import preset_help, undo_default
from .text import safe_name


@dataclass(frozen=True, slots=True)
class Field:
    key: str
    label: str
    choices: tuple[Any, ...] = ()  #: empty for a text field
    help: str = ""
    secret: bool = False

    @property
    def text(self) -> bool:
        return not self.choices


#: The "Empty seats" choice that leaves them out (the others are CPU levels).
LEFT_OUT = "left out"
#: How a CPU seat may play: the difficulties, then the fixed styles `--cpu` also accepts.
CPU_LEVELS = (*BOT_NAMES, *STYLE_NAMES)
_LEVEL_HELP = (
    "how this CPU plays: easy, medium or hard, or a fixed style (" + ", ".join(STYLE_NAMES) + ")"
)


def level_key(index: int) -> str:
    """The form's key of the level of the CPU seat `index` (1 is the first CPU to sit)."""
    return f"level{index}"


_PRESET = Field("preset", "Preset", (*PRESETS, "custom"), preset_help())
#: One field per table option the form offers (the table's kind is fixed by how it opened).
_RULE_FIELDS = tuple(
    Field(option.key, option.label, option.choices, option.help)
    for option in OPTIONS
    if not option.hidden
)
#: The options a preset sets: changing one of them may make the form's preset "custom".
_PRESET_KEYS = frozenset(key for options in PRESETS.values() for key in options)


@dataclass
class HostForm:
    kind: TableKind = TableKind.STANDARD
    values: dict[str, Any] = field(default_factory=dict)
    index: int = 0
    error: str = ""

    def __post_init__(self) -> None:
        defaults: dict[str, Any] = {
            "name": "p2pdice table",
            "my_name": "host",
            "players": "Player 1, Player 2",
            "humans": 1,
            # A hosted table opens for up to six and starts with whoever turned up (SPEC.md
            # 3.3), so no seat is given to a CPU unless the host asks.
            "cpu": 0,
            **{level_key(i): DEFAULT_LEVEL for i in range(1, MAX_SEATS)},
            "fill": LEFT_OUT,
            "password": "",
            **Rules().to_json(),
            "seats": {TableKind.PASS_AND_PLAY: 3, TableKind.STANDARD: MAX_SEATS}.get(
                self.kind, Rules().seats
            ),
            "undo": undo_default(self.kind),
            "time_bank": time_bank_default(self.kind),
        }
        self.values = {**defaults, **self.values, "kind": str(self.kind)}
        self.values.setdefault("preset", self._matching_preset())  # the default rules' preset

    # ---- fields --------------------------------------------------------------------------

    def fields(self) -> list[Field]:
        seats = self.values["seats"]
        out: list[Field] = []
        if self.kind == TableKind.STANDARD:
            out += [
                Field("name", "Table name", help="shown in lobbies on the network"),
                Field("my_name", "Your name", help="your name at the table"),
            ]
        elif self.kind == TableKind.PASS_AND_PLAY:
            out.append(
                Field("players", "Players", help="names, comma-separated: who shares this device")
            )
        out += [_PRESET] + [
            f for f in _RULE_FIELDS if not (f.key == "undo" and self.kind == TableKind.STANDARD)
        ]
        if self.kind == TableKind.STANDARD:
            out.append(
                Field(
                    "cpu",
                    "CPU seats",
                    tuple(range(seats)),
                    "CPUs run by this machine (it could read their dice); their seats are kept, "
                    "and they sit down at the start, after the players",
                )
            )
        elif self.kind == TableKind.PRACTICE:
            out.append(
                Field(
                    "humans",
                    "Your seats",
                    tuple(range(1, seats + 1)),
                    "seats you play (Tab switches), the first ones; the rest are CPUs",
                )
            )
        out += [
            Field(level_key(i), f"CPU {i}", CPU_LEVELS, _LEVEL_HELP)
            for i in range(1, self.cpu_count() + 1)
        ]
        if self.kind == TableKind.STANDARD:
            out.append(
                Field(
                    "fill",
                    "Empty seats",
                    (LEFT_OUT, *CPU_LEVELS),
                    "at the start (s, once 2 are seated): left out, or a CPU of this level each",
                )
            )
            out.append(
                Field("password", "Password", help="optional; players need it to join", secret=True)
            )
        return out

    @property
    def current(self) -> Field:
        fields = self.fields()
        self.index = max(0, min(self.index, len(fields) - 1))
        return fields[self.index]

    def move(self, delta: int) -> None:
        self.index = max(0, min(self.index + delta, len(self.fields()) - 1))
        self.error = ""

    def change(self, delta: int) -> None:
        f = self.current
        if f.text:
            return
        value = self.values.get(f.key)
        i = f.choices.index(value) if value in f.choices else 0
        self.set(f.key, f.choices[(i + delta) % len(f.choices)])

    def set(self, key: str, value: Any) -> None:
        self.values[key] = value
        self.error = ""
        if key == "preset" and value in PRESETS:
            self.values.update(
                {k: str(v) if not isinstance(v, bool) else v for k, v in PRESETS[value].items()}
            )
        elif key in _PRESET_KEYS:
            self.values["preset"] = self._matching_preset()
        elif key == "seats":
            self.values["cpu"] = min(self.values["cpu"], value - 1)
            self.values["humans"] = min(self.values["humans"], value)

    def _matching_preset(self) -> str:
        for name, options in PRESETS.items():
            if all(
                self.values[k] == (v if isinstance(v, bool) else str(v)) for k, v in options.items()
            ):
                return name
        return "custom"

    def type_char(self, ch: str) -> None:
        f = self.current
        if f.text and len(self.values[f.key]) < 120 and ch.isprintable():
            self.values[f.key] += ch

    def backspace(self) -> None:
        f = self.current
        if f.text:
            self.values[f.key] = self.values[f.key][:-1]

    def shown(self, f: Field) -> str:
        value = self.values.get(f.key)
        if f.secret:
            return "*" * len(value) if value else "(none)"
        option = OPTION_BY_KEY.get(f.key)
        if option is not None:
            return option.shown(value)
        if isinstance(value, bool):
            return "on" if value else "off"
        return str(value)

    # ---- the result ----------------------------------------------------------------------

    def players(self) -> list[str]:
        return [
            safe_name(p, "") for p in str(self.values["players"]).split(",") if safe_name(p, "")
        ]

    def humans(self) -> int:
        if self.kind == TableKind.STANDARD:
            return 1
        if self.kind == TableKind.PRACTICE:
            return int(self.values["humans"])
        return len(self.players())

    def cpu_count(self) -> int:
        """How many CPU seats the table gets: the host's choice, or every seat the people of
        a practice or pass-and-play table leave."""
        if self.kind == TableKind.STANDARD:
            return int(self.values["cpu"])
        return max(int(self.values["seats"]) - self.humans(), 0)

    def cpu(self) -> list[str]:
        """Each CPU seat's level, in the order they sit down (after the people)."""
        return [str(self.values[level_key(i)]) for i in range(1, self.cpu_count() + 1)]

    def fill_level(self) -> str | None:
        """The level of the CPUs that take the seats empty at the start; None: left out."""
        fill = self.values.get("fill", LEFT_OUT)
        return None if self.kind != TableKind.STANDARD or fill == LEFT_OUT else str(fill)

    def rules(self) -> Rules:
        """The rules object, or OptionError naming the option at fault."""
        return Rules(**{f.key: self.values[f.key] for f in _RULE_FIELDS}, kind=self.kind)

    def check(self) -> Rules | None:
        """The rules when the form is complete; otherwise None, with `error` saying why."""
        try:
            rules = self.rules()
        except OptionError as err:
            self.error = f"{err.key}: {err.detail}"
            return None
        if self.kind == TableKind.STANDARD:
            if not safe_name(self.values["name"], ""):
                self.error = "the table needs a name"
                return None
            if not safe_name(self.values["my_name"], ""):
                self.error = "you need a name at the table"
                return None
        if self.kind == TableKind.PASS_AND_PLAY:
            names = self.players()
            if len(names) < 1:
                self.error = "name at least one player"
                return None
            if len(names) > rules.seats:
                self.error = f"{len(names)} players but only {rules.seats} seats: add seats"
                return None
            problem = long_name_problem(str(self.values["players"]).split(","))
            problem = problem or same_name_problem(names)
            if problem:
                self.error = problem
                return None
        return rules

    def summary(self, rules: Rules) -> tuple[list[str], list[str]]:
        """Who sits where, then the rules as they will be bound into the table."""
        cpu = self.cpu()
        if self.kind == TableKind.PASS_AND_PLAY:
            people = ["players: " + ", ".join(self.players())]
        elif self.kind == TableKind.PRACTICE:
            people = [f"your seats: {self.humans()}"]
        else:
            people = [
                f"table name: {safe_name(self.values['name'])}; "
                f"you play as {safe_name(self.values['my_name'])}",
                "password: " + ("set" if self.values["password"] else "none"),
            ]
        after = "the players" if self.kind == TableKind.STANDARD else "the people"
        cpu_line = (
            f"CPU seats: {len(cpu)} ({', '.join(cpu)}), seated after {after}"
            if cpu
            else "CPU seats: none"
        )
        if cpu and self.kind == TableKind.STANDARD:
            cpu_line += "; run by this machine: players are told it could read their dice"
        if self.kind == TableKind.STANDARD:
            fill = self.fill_level()
            people.append(
                f"up to {rules.seats} seats; you start once 2 are seated; empty seats: "
                + ("left out" if fill is None else f"a {fill} CPU each, run by this machine")
            )
        options = [
            f"{option.label.lower()}: {option.shown(getattr(rules, option.key))}"
            for option in OPTIONS
        ]
        return [*people, cpu_line, "length: " + how_long(rules)], options
