"""`p2pdice stats`: statistics and ratings from the transcripts saved on this device.

Only finds the files and prints; every figure is computed by `p2pdice.stats` (pure).
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..core.describe import amount, short_key
from ..core.errors import P2PDiceError, Reason
from .common import add_home_option, game_homes, output_folder
from .options import CliError, add_stats_options
from .verify_exits import EXIT_FORK, default_jobs

if TYPE_CHECKING:  # the verifier and the statistics load only when a command reads games
    from ..stats.counts import PlayerStats
    from ..stats.games import Game, Skipped
    from ..stats.league import Arrival
    from ..stats.ratings import Rating
    from ..ui.ratings import RatingBook

#: The folder under the data folder that keeps games imported from other devices.
LEAGUE = "league"
#: Verdicts already reached, by file hash (p2pdice/stats/cache.py).
CACHE_FILE = "cache/stats.json"

#: Version of the `--json` object's shape (tests/stats/test_stats_json_schema_is_stable.py).
#: 2: each player's `stand_in_games` and `made_for_it`.
JSON_SCHEMA = 2


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = sub.add_parser(
        "stats",
        help="your statistics and ratings, from the verified games on this device",
        description="Statistics and ratings per player key, computed only from the transcripts "
        "saved on this device that verify (see docs/stats.md). Files that do not verify are "
        "listed with their reason code and never counted.",
    )
    add_home_option(parser)
    add_stats_options(parser)
    parser.set_defaults(run=run)


def saved_transcripts(home: Path) -> list[Path]:
    """Every game log under `home`: in each data folder this device's tables save games in
    (`common.game_homes`: the data folder itself, the hosting seat's, each practice,
    pass-and-play and graded match seat's and host's), the transcripts of tables played or
    watched and the logs of tables hosted (the layout of p2pdice/store.py); and the games
    imported from other devices (`league/<table id>.jsonl`); sorted by path."""
    found = [
        log
        for data in game_homes(home)
        for log in (*data.glob("tables/*/transcript.jsonl"), *data.glob("hosted/*/log.jsonl"))
    ]
    found += home.glob(f"{LEAGUE}/*.jsonl")
    return sorted(p for p in found if p.is_file() and not p.is_symlink())


def read_files(
    paths: list[Path], cache: dict[str, Any] | None = None, used: set[str] | None = None
) -> list[Game | Skipped]:
    """Each file's verdict; with a cache (file hash -> record), a file whose exact bytes
    were judged before is not verified again, each new verdict is added to it, and the
    hashes of the files read are added to `used`. Files of the same bytes (a seat's copy
    of a finished game beside its host's log) are verified once."""
    import hashlib

    from ..core.verify import complete_lines
    from ..stats.cache import record_of
    from ..stats.games import Skipped
    from .parallel_verify import jobs_for, read_games

    read: list[tuple[str, bytes, str] | Skipped] = []  #: (source, data, digest), or unread
    verdicts: dict[str, Game | Skipped] = {}  #: by digest: from the cache, or verified below
    unseen: dict[str, tuple[str, bytes]] = {}  #: by digest: verified together, on every core
    for path in paths:
        try:
            data = path.read_bytes()
        except OSError as err:
            detail = f"cannot read the file: {err.strerror}"
            read.append(Skipped(str(path), str(Reason.INTERNAL), detail))
            continue
        digest = hashlib.sha256(data).hexdigest()
        read.append((str(path), data, digest))
        if used is not None:
            used.add(digest)
        if digest in verdicts or digest in unseen:
            continue
        item = None if cache is None else _cached(cache.get(digest), str(path), data)
        if item is None:  # no verdict yet, or a damaged one: verified below
            unseen[digest] = (str(path), data)
        else:
            verdicts[digest] = item
    jobs = jobs_for(sum(len(data) for _, data in unseen.values()), default_jobs())
    items = read_games(list(unseen.values()), jobs=jobs)
    for digest, item in zip(unseen, items, strict=True):
        verdicts[digest] = item
        if cache is not None:
            cache[digest] = record_of(item)
    out: list[Game | Skipped] = []
    for entry in read:
        if isinstance(entry, Skipped):
            out.append(entry)
            continue
        source, data, digest = entry
        verdict = verdicts[digest]
        if isinstance(verdict, Skipped):  # its lines tell a copy of another log (distinct_games)
            verdict = replace(verdict, lines=tuple(complete_lines(data)))
        out.append(replace(verdict, source=source) if verdict.source != source else verdict)
    return out


def _cached(record: Any, source: str, data: bytes) -> Game | Skipped | None:
    """The verdict a cache record holds; None (verify afresh) when there is none or it is
    damaged: a cache is a shortcut, never a reason to fail or to count a wrong figure."""
    from ..stats.cache import from_record

    if not isinstance(record, dict):
        return None
    try:
        return from_record(source, record, tuple(data[:-1].split(b"\n")))
    except (KeyError, TypeError, ValueError, IndexError, AttributeError, P2PDiceError):
        return None


def cache_tag() -> str:
    """Which program wrote a cache: a cache of another version is not read."""
    from .. import __version__
    from ..stats.cache import CACHE_VERSION

    return f"{CACHE_VERSION}/{__version__}"


def load_cache(home: Path) -> dict[str, Any]:
    try:
        saved = json.loads((home / CACHE_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}  # none yet, or unreadable: verify everything, and write a fresh one
    if not isinstance(saved, dict) or saved.get("version") != cache_tag():
        return {}
    files = saved.get("files")
    return files if isinstance(files, dict) else {}


def save_cache(home: Path, files: dict[str, Any]) -> None:
    from ..store import atomic_write

    body = json.dumps({"version": cache_tag(), "files": files}, sort_keys=True)
    atomic_write(home / CACHE_FILE, body.encode())


def load_games(home: Path, *, use_cache: bool = False) -> tuple[list[Game], list[Skipped]]:
    """The verified games under `home` and the files skipped. With `use_cache` the verdicts
    are read from, and saved to, the cache (`cache/stats.json`): only the files seen now."""
    from ..stats.games import distinct_games

    if not use_cache:
        return distinct_games(read_files(saved_transcripts(home)))
    cache = load_cache(home)
    known = dict(cache)
    used: set[str] = set()
    read = read_files(saved_transcripts(home), cache, used)
    # New or mended verdicts, or files gone: keep exactly the files seen now.
    if used != set(known) or any(cache[d] is not known.get(d) for d in used):
        save_cache(home, {digest: cache[digest] for digest in sorted(used)})
    return distinct_games(read)


def import_files(home: Path, names: list[str], games: list[Game]) -> list[Arrival]:
    """Judge each file named (folders: every *.jsonl under them, sorted) against the games
    held, and keep the new ones as `league/<table id>.jsonl`."""
    from ..stats.league import judge

    paths: list[Path] = []
    for name in names:
        path = Path(name)
        if path.is_dir():
            paths += sorted(p for p in path.rglob("*.jsonl") if p.is_file())
        elif path.exists():
            paths.append(path)
        else:
            raise CliError(f"--import: no such file or folder: {name}")
    arrivals = judge(games, read_files(paths))
    for arrival in arrivals:
        if arrival.game is not None:
            write_log(home / LEAGUE / f"{arrival.game.table_id}.jsonl", arrival.game)
    return arrivals


def write_log(path: Path, game: Game) -> None:
    from ..store import atomic_write

    atomic_write(path, b"".join(line + b"\n" for line in game.lines))


def export_games(folder: Path, games: list[Game]) -> None:
    try:
        for game in games:
            write_log(folder / f"{game.table_id}.jsonl", game)
    except OSError as err:
        raise CliError(f"--export: cannot write into {folder}: {err.strerror}") from None


def run(args: argparse.Namespace) -> int:
    from ..stats.league import FORK
    from ..store import data_dir

    if args.json and args.plot:
        # Printed after the JSON, the plot would leave stdout no program can parse.
        raise CliError(
            "--plot: not with --json (the plot would spoil the JSON; each rating's `history` "
            "in it holds every point the plot draws)"
        )
    folder = output_folder("--export", args.export) if args.export else None
    home = data_dir(args.home)
    use_cache = not args.no_cache
    games, skipped = load_games(home, use_cache=use_cache)
    status = 0
    arrivals: list[Arrival] = []
    if args.import_paths:
        arrivals = import_files(home, args.import_paths, games)
        if any(a.verdict == FORK for a in arrivals):
            status = EXIT_FORK
        games, skipped = load_games(home, use_cache=use_cache)
    if folder is not None:
        export_games(folder, games)
        if not args.json:
            print(f"exported {len(games)} game(s) to {folder}")
    if args.practice == "omit":
        games = [g for g in games if g.kind == "standard"]
    body = report(games, skipped)
    if args.import_paths:
        body["imported"] = [a.to_json() for a in arrivals]
        if not args.json:
            for a in arrivals:
                print(f"import {a.source}: {a.verdict}: {a.detail}")
    if args.json:
        print(json.dumps(body, indent=1, sort_keys=True))
    else:
        print(human(body))
    if args.plot:
        rated = [r for r in body["ratings"] if r["history"]]
        colour = sys.stdout.isatty()  # a file or a pipe gets the plot without colour codes
        print(plot(rated, colour=colour) if rated else "no rated games yet: nothing to plot")
    return status


def report(games: list[Game], skipped: list[Skipped]) -> dict[str, Any]:
    from ..stats.counts import tally
    from ..stats.ratings import PROVISIONAL_GAMES, rate

    names = {p.key: p.name for g in games for p in g.players}
    groups = [
        {"kind": kind, "preset": preset, "players": [s.to_json() for s in _ordered(players)]}
        for (kind, preset), players in sorted(tally(games).items())
    ]
    ratings = sorted(rate(games).values(), key=lambda r: (-r.ordinal, r.key))
    return {
        "schema": JSON_SCHEMA,
        "games": len(games),
        "groups": groups,
        "ratings": [{**r.to_json(), "name": names.get(r.key, "")} for r in ratings],
        "provisional_until": PROVISIONAL_GAMES,
        "skipped": [{"file": s.source, "reason": s.reason, "detail": s.detail} for s in skipped],
    }


def _ordered(players: dict[str, PlayerStats]) -> list[PlayerStats]:
    return sorted(players.values(), key=lambda s: (-s.games, s.key))


def _pct(rate: float | None) -> str:
    return "-" if rate is None else f"{100 * rate:.0f}%"


def human(body: dict[str, Any]) -> str:
    from ..stats.games import DUPLICATE

    out = [f"{body['games']} verified game(s)"]
    for group in body["groups"]:
        kind = "" if group["kind"] == "standard" else f" ({group['kind'].replace('_', '-')}: "
        kind += "not a contest)" if kind else ""
        out.append(f"\n{group['preset']} rules{kind}")
        for p in group["players"]:
            cpu = " CPU" if p["kind"] != "human" else ""
            who = f"{'/'.join(p['names'])} [{short_key(p['key'])}]{cpu}"
            per = p["dice_lost_per_round"]
            out.append(
                f"  {who}: {amount(p['games'], 'game')}, {amount(p['wins'], 'win')}, places "
                f"{' '.join(f'{k}:{v}' for k, v in p['places'].items())}; dice lost per round "
                f"{'-' if per is None else f'{per:.2f}'}; Liar calls {p['calls']['made']} "
                f"({_pct(p['calls']['rate'])} right); bids called {p['bids_called']['called']} "
                f"({_pct(p['bids_called']['rate'])} held); bluffs {p['bluffs']['bluffs']} of "
                f"{p['bluffs']['known']} known bids; exact calls {p['exact_calls']['made']} "
                f"({_pct(p['exact_calls']['rate'])} right)"
            )
            out += _not_its_own(p)
            for key, h in p["head_to_head"].items():
                out.append(
                    f"    vs [{short_key(key)}]: {amount(h['games'], 'game')}, ahead {h['ahead']}, "
                    f"behind {h['behind']}"
                )
    out.append(
        "\nratings (standard tables with at least two human keys; a seat a CPU stand-in "
        "played is not rated; mu - 3 sigma)"
    )
    if not body["ratings"]:
        out.append("  none yet")
    for r in body["ratings"]:
        mark = " (provisional)" if r["provisional"] else ""
        cpu = " CPU" if r["kind"] != "human" else ""
        out.append(
            f"  {r['name']} [{short_key(r['key'])}]{cpu}: {r['rating']:.2f}{mark} "
            f"after {amount(r['games'], 'game')}"
        )
    copied = sum(1 for s in body["skipped"] if s["reason"] == DUPLICATE)
    if copied:
        out.append(
            f"\n{copied} more file(s) are copies of games shown here (a seat's copy beside its "
            "host's log, say): each game is shown once (--json names them)"
        )
    failed = [s for s in body["skipped"] if s["reason"] != DUPLICATE]
    if failed:
        out.append("\nskipped (not counted)")
        out += [f"  {s['file']}: {s['reason']}: {s['detail']}" for s in failed]
    return "\n".join(out)


def _not_its_own(p: dict[str, Any]) -> list[str]:
    """What a player's line leaves out, said plainly: the games a CPU stand-in played part of
    (their places are the seat's, counted above, but rated and compared head to head for
    nobody), and the moves made in its seat that are not its own."""
    out = []
    if p["stand_in_games"]:
        out.append(
            f"    {amount(p['stand_in_games'], 'game')} played partly by a CPU stand-in: its "
            "place counted above, not rated, no head to head"
        )
    made = p["made_for_it"]
    by = [
        f"{n} {who}"
        for n, who in ((made["host"], "by the host"), (made["stand_in"], "by a CPU stand-in"))
        if n
    ]
    if by:
        moves = amount(made["host"] + made["stand_in"], "move")
        out.append(f"    {moves} made for it, in none of its figures: {', '.join(by)}")
    return out


def plot(
    ratings: list[dict[str, Any]], width: int = 80, height: int = 20, *, colour: bool = True
) -> str:
    """Every rated key's rating after each of its games, as terminal text: with terminal
    colour codes, or with `colour` False as plain text (for a file or a pipe)."""
    import plotext as plt

    plt.clear_figure()
    plt.plotsize(width, height)
    plt.title("ratings (mu - 3 sigma) after each game")
    plt.xlabel("games played")
    for r in ratings:
        ys = [point["rating"] for point in r["history"]]
        if ys:
            plt.plot(list(range(1, len(ys) + 1)), ys, label=f"{r['name']} [{short_key(r['key'])}]")
    text: str = plt.build() if colour else plt.uncolorize(plt.build())
    return text


def record_text(home: Path) -> str:
    """What the lobby's record screen shows: `p2pdice stats` and its rating plot, from the
    verified games under `home` (through the cache), practice kept apart as `stats` does."""
    games, skipped = load_games(home, use_cache=True)
    body = report(games, skipped)
    rated = [r for r in body["ratings"] if r["history"]]
    plotted = plot(rated, width=76, height=14) if rated else "no rated games yet: nothing to plot"
    return human(body) + "\n\n" + plotted


def ratings_book(home: Path, finished: str | None = None) -> RatingBook:
    """The ratings the table screens show (`ui.ratings.RatingBook`), from the verified games
    under `home`, served from the stats cache; with `finished` (a table id, hex), also each
    of its keys' change from that game (or, for a seat a CPU stand-in played part of, that
    the game did not rate it). Blocking: the ui runs it on a thread."""
    from ..stats.ratings import change_of, rate, stood_in_keys
    from ..ui.ratings import RatingBook, RatingChange, RatingFigure

    def figure(r: Rating) -> RatingFigure:
        return RatingFigure(r.ordinal, r.provisional, r.games)

    games, _ = load_games(home, use_cache=True)
    figures = {key: figure(r) for key, r in rate(games).items()}
    changes: dict[str, dict[str, RatingChange]] = {}
    if finished is not None:
        changes[finished] = {
            key: RatingChange(None if c.before is None else figure(c.before), figure(c.after))
            for key, c in change_of(games, finished).items()
        }
        for key in stood_in_keys(games, finished):
            changes[finished][key] = RatingChange(None, None, stood_in=True)
    return RatingBook(figures, changes)


__all__ = ["add_parser", "human", "load_games", "plot", "ratings_book", "report", "run"]
