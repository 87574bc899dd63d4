"""Validators for wire frames, messages and entries: the code's own parsers, and the JSON Schemas.

`code_*` checks always run (p2pdice's strict parsers). `schema_validator(name)` gives a
jsonschema validator for protocol/schemas/v1/<name>.schema.json, or None while that file
does not exist yet, so a test can skip only its schema part.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from p2pdice.core.codec import encode
from p2pdice.core.events import check_event
from p2pdice.core.messages import parse_message
from p2pdice.core.transcript import parse_entry
from p2pdice.net.frames import TO_CLIENT, TO_HOST, decode_frame
from tests.support.vectors import SCHEMAS

WIRE_SCHEMAS = ("frame_to_client", "frame_to_host", "message", "entry", "event")


def schemas_present() -> bool:
    return all((SCHEMAS / f"{name}.schema.json").exists() for name in WIRE_SCHEMAS)


@cache
def _registry() -> Any:
    from referencing import Registry, Resource
    from referencing.jsonschema import DRAFT202012

    docs = [json.loads(p.read_text(encoding="utf-8")) for p in sorted(SCHEMAS.rglob("*.json"))]
    resources = [
        (doc["$id"], Resource.from_contents(doc, default_specification=DRAFT202012))
        for doc in docs
        if isinstance(doc, dict) and "$id" in doc
    ]
    return Registry().with_resources(resources).crawl()


@cache
def schema_validator(name: str) -> Any:
    """A Draft 2020-12 validator for one top-level schema file, or None if it is missing."""
    path = SCHEMAS / f"{name}.schema.json"
    if not path.exists():
        return None
    from jsonschema import Draft202012Validator

    doc = json.loads(path.read_text(encoding="utf-8"))
    return Draft202012Validator({"$ref": doc["$id"]}, registry=_registry())


def schema_errors(name: str, value: Any) -> list[str]:
    validator = schema_validator(name)
    if validator is None:
        return []
    return [
        f"{name}: {e.message[:200]} at {list(e.absolute_path)}"
        for e in validator.iter_errors(value)
    ]


# ---- the code's own checks ---------------------------------------------------------------


def code_check_to_client(frame: str | bytes) -> dict[str, Any]:
    """A frame to a client as the client reads it, and everything inside it."""
    obj = decode_frame(frame, TO_CLIENT)
    if obj["type"] == "entry":
        entry = parse_entry(encode(obj["entry"]))
        if entry.msg is not None:
            parse_message(entry.msg.to_json())
        if entry.event is not None:
            check_event(entry.event)
            for key in ("commits", "contributions"):
                for raw in entry.event.get(key, ()):
                    parse_message(raw)
    return obj


def code_check_to_host(frame: str | bytes) -> dict[str, Any]:
    """A frame to the host as the host reads it, and the message inside it."""
    obj = decode_frame(frame, TO_HOST)
    if obj["type"] in ("send", "join"):
        parse_message(obj["msg"])
    return obj
