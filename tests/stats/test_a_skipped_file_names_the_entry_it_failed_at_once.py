"""A file `stats` skips names the entry it failed at once, even when the verifier's own
detail already starts with it (a bad host signature: "entry 2: the host signature does not
verify"), so the line reads `BAD_SIGNATURE: entry 2: ...`, never `entry 2: entry 2: ...`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from p2pdice.cli import main
from p2pdice.core.errors import Reason
from p2pdice.core.verify import verify_lines

from .tables import league, save_home


def test_a_bad_signature_names_its_entry_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (game,) = league(1)
    home = save_home(tmp_path, [game], ["a"])
    log = home / "hosted" / "a" / "log.jsonl"
    lines = log.read_bytes().splitlines()
    at = 2
    entry = json.loads(lines[at])
    sig = entry["sig"]
    entry["sig"] = ("1" if sig[0] != "1" else "2") + sig[1:]
    lines[at] = json.dumps(entry, separators=(",", ":"), sort_keys=True).encode()
    log.write_bytes(b"".join(line + b"\n" for line in lines))
    failure = verify_lines(lines).failure
    assert failure is not None and failure.reason == Reason.BAD_SIGNATURE
    assert failure.detail.startswith(f"entry {at}: ")  # the verifier's words name it already

    assert main(["stats", "--home", str(home), "--json"]) == 0
    (skipped,) = json.loads(capsys.readouterr().out)["skipped"]
    assert skipped["detail"] == failure.detail

    assert main(["stats", "--home", str(home)]) == 0
    text = capsys.readouterr().out
    assert f"entry {at}: entry {at}" not in text
    assert f"{log}: {Reason.BAD_SIGNATURE}: entry {at}: " in text
