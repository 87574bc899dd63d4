"""The lobby's keys: join, watch or join by address, the new-table form (host, practice,
pass-and-play), resuming a table this device hosted, and opening the chosen table.

Everything outside the screen (mDNS browsing and liveness probes that fill `ui.book`,
finding an address, reading saved tables, starting the table itself) is the injected
`LobbyServices` (`p2pdice.cli.lobby.CliLobby` in the program); this module only asks and
shows.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from functools import partial

from ..core.advert import AdvertPhase, short_id
from ..core.clean import clean_name
from ..core.describe import amount
from ..core.errors import Reason, UserError
from ..core.rules import TableKind
from .controller import Controller
from .hostform import HostForm
from .lobbymodel import LobbyEntry
from .ports import HostedTable, LobbyServices, TableFactory
from .state import Prompt, UiState
from .text import safe_name, safe_text

#: `p2pdice join`'s exit status when it quits after its password was refused (as headless).
REFUSED_PASSWORD = 2


def picker_label(table: HostedTable) -> str:
    """One hosted table in the resume picker: its name and short id, who hosted it (the name
    this device's player sat under), its seats and round, and when it was last played, so
    two tables called "Kitchen" are told apart:
    `Kitchen#3fa2c1d0, hosted by Ann, 4 seats, round 7 (12 Mar 20:15)`."""
    sid = short_id(table.table_id) or "?"
    when = time.strftime("%d %b %H:%M", time.localtime(table.saved_at))
    head = f"{safe_name(table.name)}#{sid}"
    host = safe_name(table.host, "")
    if host:
        head += f", hosted by {host}"
    if table.seats is not None:
        where = f"{table.seats} seats, " + (
            f"round {table.round}" if table.round is not None else "starting"
        )
    elif table.most_seats is not None:
        where = f"up to {table.most_seats} seats, not started"
    else:
        return f"{head} ({when})"  # a log whose start it cannot read
    return f"{head}, {where} ({when})"


class LobbyActions:
    def __init__(self, c: Controller, services: LobbyServices) -> None:
        self.c = c
        self.services = services
        c.lobby = self
        self.listening = ""  #: the lobby's note once the services listen for tables
        #: Asks the password again (with the words to say) while a join with one is opening.
        self.password_again: Callable[[str], None] | None = None
        self.password_table = "this table"  #: the name of the table being joined, cleaned

    @property
    def ui(self) -> UiState:
        return self.c.ui

    # ---- what the services report ---------------------------------------------------------

    def listening_on(self, note: str) -> None:
        """The services listen for tables, as `note` says (the offer to resume follows it)."""
        self.listening = note
        self.update_note()

    def cannot_listen(self, note: str) -> None:
        """The services cannot listen for tables here: `note` says why, and what to do."""
        self.listening = ""
        self.ui.lobby_note = note
        self.c.refresh()

    def update_note(self) -> None:
        """The lobby's note again: a hosted game may have been resumed or ended meanwhile."""
        if self.listening:
            self.ui.lobby_note = self.listening + self.resume_note()
            self.c.refresh()

    # ---- tables this machine hosted ------------------------------------------------------

    def resume_note(self) -> str:
        """The lobby's offer to resume a game this device hosted that did not end."""
        tables = self.services.hosted_tables()
        if not tables:
            return ""
        if len(tables) == 1:
            return f" Press r to resume your table {safe_name(tables[0].name)!r}."
        return f" Press r to resume one of the {len(tables)} tables you hosted."

    def resume_hosted(self) -> None:
        """`r`: reopen a table this device hosted from its saved log (no id typed by hand)."""
        tables = self.services.hosted_tables()
        if not tables:
            self.c.say("no unfinished table was hosted on this device", error=True)
            return
        if len(tables) == 1:
            self.resume(tables[0].table_id, tables[0].name)
            return
        shown = tables[:9]
        listing = "; ".join(f"{i} {picker_label(t)}" for i, t in enumerate(shown, 1))

        def chosen(text: str) -> None:
            text = text.strip()
            if not (text.isdigit() and 1 <= int(text) <= len(shown)):
                self.c.say(f"type a number from 1 to {len(shown)}", error=True)
                return
            table = shown[int(text) - 1]
            self.resume(table.table_id, table.name)

        self.ui.prompt = Prompt(f"Resume which table? {listing}:", chosen, text="1")

    def resume(self, table_id: str, name: str) -> None:
        player = self.ui.player_name or self.services.default_name()
        try:
            factory = self.services.resume_table(table_id, player=player)
        except UserError as err:
            self.c.say(safe_text(err, 200), error=True)
            return
        self.open_table(factory, f"resuming {safe_name(name)!r}")

    # ---- keys ---------------------------------------------------------------------------

    def enter(self, mode: str) -> None:
        if mode == "lobby":
            self.join_selected(spectate=False)
        elif mode == "form":
            form = self.ui.form
            if form is not None and form.check() is not None:
                self.ui.screen = "confirm"
            elif form is not None:
                self.c.say(form.error, error=True)
        elif mode == "confirm":
            self.open_from_form()

    def escape(self, mode: str) -> None:
        if mode == "lobby":
            self.clear_search()
        elif mode == "confirm":
            self.ui.screen = "form"
        elif mode == "form":
            if self.ui.from_lobby:
                self.ui.screen = "lobby"
            else:
                self.c.exit_app(0)

    def search(self) -> None:
        """`/`: list only the tables whose name, address or short id the text finds (an
        empty search, or Esc in the lobby, lists them all again)."""
        book = self.ui.book

        def done(text: str) -> None:
            book.search(text)
            shown = sum(row.count for row in book.rows())
            if book.query:
                match = "matches" if shown == 1 else "match"
                tables = amount(len(book.entries), "table")
                self.c.say(f"{shown} of {tables} {match} {book.query!r} (Esc: all)")
            else:
                self.c.say("")

        self.ui.prompt = Prompt(
            "Search tables (name, address or short id):",
            done,
            text=book.query,
            hint="e.g. Kitchen, 10.0.0.5 or 3fa2c1d0",
        )

    def clear_search(self) -> None:
        if self.ui.book.query:
            self.ui.book.search("")
            self.c.say("")

    def join_selected(self, *, spectate: bool) -> None:
        row = self.ui.book.current_row()
        if row is not None and row.group:  # a host's group: Enter opens or closes it
            self.ui.book.toggle(row.group)
            return
        entry = self.ui.book.current()
        if entry is None:
            self.c.say(
                "no table selected: wait for one to appear, or press a to join by address",
                error=True,
            )
            return
        if entry.stale:
            self.c.say("that table's host is not answering", error=True)
            return
        phase = entry.advert.phase or AdvertPhase.LOBBY
        url = entry.url
        if url is None:
            self.c.say("that table's announcement is malformed: it cannot be joined", error=True)
            return
        if not spectate and self._rejoin(entry, url):
            return
        if not spectate and phase != AdvertPhase.LOBBY:
            self.c.say(f"that table is {safe_text(phase, 20)}: press s to watch it", error=True)
            return
        locked = entry.advert.locked
        self.ask_name_then_join(
            url,
            bytes.fromhex(entry.table_id),
            locked=locked,
            spectate=spectate,
            table_name=entry.advert.name or entry.name,
        )

    def _rejoin(self, entry: LobbyEntry, url: str) -> bool:
        """Back to the seat this device holds at that table (saved when it sat down: the
        identity key proves it, the saved secrets give back the hand), asking nothing."""
        if not self.services.holds_seat(entry.table_id, entry.advert.host_key_prefix or ""):
            return False
        # The name is unused: the seat keeps its own.
        name = self.ui.player_name or self.services.default_name()
        factory = self.services.join_table(
            url=url,
            name=name,
            password=None,  # a seat is taken back by signature, without the password
            spectate=False,
            table_id=bytes.fromhex(entry.table_id),
        )
        self.open_table(factory, "back to your seat")
        return True

    def ask_name_then_join(
        self,
        url: str,
        table_id: bytes | None,
        *,
        locked: bool,
        spectate: bool,
        table_name: str = "",
    ) -> None:
        def joining(name: str) -> Callable[[str | None], TableFactory]:
            return lambda password: self.services.join_table(
                url=url, name=name, password=password, spectate=spectate, table_id=table_id
            )

        def with_password(name: str, password: str | None) -> None:
            self.open_join(joining(name), password)

        def ask_password(name: str) -> None:
            self.ask_password(joining(name))

        def got_name(text: str) -> None:
            name = clean_name(text) or self.ui.player_name or self.services.default_name()
            self.ui.player_name = name
            if locked:
                ask_password(name)
            else:
                with_password(name, None)

        self.password_table = safe_text(table_name, 40) if table_name else "this table"
        if spectate:  # watched under no name, and without the password (SPEC.md 10.2)
            with_password("spectator", None)
            return
        self.ui.prompt = Prompt(
            "Your name at the table:",
            got_name,
            text=self.ui.player_name or self.services.default_name(),
        )

    def open_join(
        self, joining: Callable[[str | None], TableFactory], password: str | None, what: str = ""
    ) -> None:
        """Open the table `joining(password)` joins; should the host refuse `password`, the
        player is asked for it again (`password_refused`), and the table opened anew."""
        self.password_again = None if password is None else partial(self.ask_password, joining)
        if self.ui.exit_code == REFUSED_PASSWORD:
            self.ui.exit_code = 0  # trying again: the refusal no longer stands
        self.open_table(joining(password), what or "joining")

    def ask_password(self, joining: Callable[[str | None], TableFactory], hint: str = "") -> None:
        """Ask for the table's password (`hint`: why again), then open the table with it."""
        self.ui.prompt = Prompt(
            "Password for this table:",
            lambda pw: self.open_join(joining, pw),
            secret=True,
            hint=hint,
        )

    def password_refused(self) -> None:
        """The host refused the password we were asked for: close that table and ask again,
        saying why in words (not a table screen with the reason code)."""
        ask, runtime = self.password_again, self.c.runtime
        if ask is None or runtime is None or self.ui.screen != "table":
            return
        for session in self.c.sessions:
            facts = self.c.facts(session)
            # The host's own refusal (it is in the errors it sent), not the client's alarm
            # about a host that could not prove it knows the password.
            if facts.fatal is None or facts.fatal[0] != Reason.BAD_PASSWORD:
                continue
            if facts.fatal not in facts.errors:
                continue
            self.password_again = None
            self.c.set_runtime(None)
            self.c.spawn(runtime.close(), "closing the table")
            self.ui.screen = "lobby" if self.ui.from_lobby else "starting"
            table = self.password_table
            where = f"table {table}" if table != "this table" else table
            words = f"That password is not right for {where}. Try again or press Esc."
            if not self.ui.from_lobby:
                # `p2pdice join`: Esc leaves the prompt for a screen whose q quits, and the
                # shell hears the refusal as the headless join's.
                self.ui.exit_code = REFUSED_PASSWORD
                words = f"That password is not right for {where}. Try again, or Esc and q."
            ask(words)
            self.c.say(words, error=True)
            return

    def ask_address(self) -> None:
        async def got(text: str) -> None:
            text = text.strip()
            if not text:
                return
            self.c.say(f"looking for {safe_text(text, 60)}...")
            try:
                target = await self.services.find(text)
            except UserError as err:
                self.c.say(safe_text(err, 200), error=True)
                return
            self.c.say("")
            self.ask_name_then_join(
                target.url,
                target.table_id,
                locked=target.locked,
                spectate=False,
                table_name=text,
            )

        self.ui.prompt = Prompt(
            "Table address (HOST:PORT, HOST:PORT/TABLE, or a table name):",
            got,
            hint="e.g. 192.168.1.20:8765",
        )

    def new_form(self, kind: TableKind) -> None:
        form = HostForm(kind=kind)
        form.values["my_name"] = self.ui.player_name or self.services.default_name()
        self.ui.form = form
        self.ui.screen = "form"
        self.c.say("")  # what the lobby last said is not about the new table

    # ---- opening tables -----------------------------------------------------------------

    def open_table(self, factory: TableFactory, what: str) -> None:
        """Run `factory` as a task, showing "what..." meanwhile; the table it opens (and
        its hint, such as where others join) then fills the screen."""
        back = self.ui.screen if self.ui.screen in ("lobby", "form", "confirm") else "lobby"
        self.ui.screen = "starting"
        busy = f"{what}..."
        self.c.say(busy)

        async def go() -> None:
            try:
                runtime = await factory()
            except BaseException:
                self.ui.screen = back if self.ui.from_lobby else "starting"
                raise
            self.c.set_runtime(runtime)
            if runtime.hint:
                self.c.say_table_hint()
            elif self.ui.message == busy:
                self.c.say("")

        self.c.spawn(go(), what)

    def open_from_form(self) -> None:
        form = self.ui.form
        if form is None:
            return
        rules = form.check()
        if rules is None:
            self.c.say(form.error, error=True)
            return
        cpu = form.cpu()
        if form.kind == TableKind.PRACTICE:
            factory = self.services.practice_table(rules, cpu, form.humans())
            self.open_table(factory, "opening a practice table")
        elif form.kind == TableKind.PASS_AND_PLAY:
            factory = self.services.pass_and_play_table(rules, form.players(), cpu)
            self.open_table(factory, "opening a pass-and-play table")
        else:
            name = clean_name(form.values["name"])
            player = clean_name(form.values["my_name"])
            self.ui.player_name = player
            password = form.values["password"] or None
            factory = self.services.host_table(
                name=name,
                player=player,
                rules=rules,
                cpu=cpu,
                password=password,
                fill_level=form.fill_level(),
            )
            self.open_table(factory, "opening your table")
