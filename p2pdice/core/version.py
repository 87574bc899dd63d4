"""The protocol version this implementation speaks (SPEC.md): the genesis entry's and the
challenge's `protocol`, and the advertisement's `v`. Defined here once; the schemas are
tested equal to it."""

from __future__ import annotations

PROTOCOL_VERSION = 1
