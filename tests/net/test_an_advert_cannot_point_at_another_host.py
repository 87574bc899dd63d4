"""An advertised table cannot point elsewhere: its path must name its own table id on the
advertising host, and only a well-formed host key prefix is kept (SPEC.md 10.4)."""

from __future__ import annotations

from typing import Any

import pytest

from p2pdice.core.advert import Advert, host_key_prefix, table_url
from p2pdice.net.discovery import TableAd
from p2pdice.net.resolve import _pick

pytestmark = pytest.mark.usefixtures("private_network")


TABLE_ID = "ab" * 32


@pytest.mark.parametrize(
    ("row", "url"),
    [
        ({"id": TABLE_ID, "path": f"/t/{TABLE_ID}"}, f"wss://10.0.0.5:8765/t/{TABLE_ID}"),
        ({"id": TABLE_ID}, f"wss://10.0.0.5:8765/t/{TABLE_ID}"),
        ({"id": TABLE_ID, "path": f"@203.0.113.9:80/t/{TABLE_ID}"}, None),
        ({"id": TABLE_ID, "path": "x"}, None),
        ({"id": "zz", "path": "/t/zz"}, None),
        ({"id": 7, "path": "/t/7"}, None),
        ({"path": "/t/"}, None),
    ],
)
def test_an_announced_table_must_name_itself_as_a_host_does(row: dict[str, Any], url) -> None:
    assert table_url("10.0.0.5", 8765, row) == url
    ad = TableAd(
        service="s", name="n", addresses=["10.0.0.5"], port=8765, advert=Advert.from_txt(row)
    )
    assert ad.url == url and ad.to_json()["url"] == url
    if url is None:
        with pytest.raises(ValueError):
            _pick([row], "10.0.0.5", 8765, None)


def test_only_a_well_formed_host_key_prefix_is_kept() -> None:
    assert host_key_prefix({"hk": "0123456789abcdef"}) == "0123456789abcdef"
    for bad in (7, "zz", "0123", None):
        assert host_key_prefix({"hk": bad}) is None
