"""`join NAME` hears one table id advertised twice. When both adverts name one host key
(a host on two interfaces, or a stranger's copy of the advert) it is one table, and the key
pin at the connection passes over whichever address holds another key. But a stranger can
also announce the real table's id and name under its *own* key prefix (`hk`): the pin then
checks the stranger's key, which the stranger holds, so nothing passed it over. `join`
collapsed the two to the one whose address sorts first, and went to the stranger whenever
its address did (resolve.py). Two host keys claiming one table are now ambiguous: join
names both, each by an address that picks it alone, and joins neither."""

from __future__ import annotations

import pytest

from p2pdice.core.advert import Advert
from p2pdice.net import resolve
from p2pdice.net.discovery import TableAd
from p2pdice.net.resolve import ResolveError

TABLE_ID = "3f" * 32
REAL_KEY, OTHER_KEY = "a1" * 8, "0b" * 8


def ad(address: str, hk: str) -> TableAd:
    txt = {"name": "Kitchen", "id": TABLE_ID, "path": f"/t/{TABLE_ID}", "hk": hk}
    txt |= {"phase": "lobby", "seats": "1/4"}
    return TableAd(
        service=f"Kitchen [{TABLE_ID[:8]}]._p2pdice._tcp.local.",
        name="Kitchen",
        addresses=[address],
        port=7777,
        advert=Advert.from_txt(txt),
    )


def heard(monkeypatch: pytest.MonkeyPatch, tables: list[TableAd]) -> None:
    async def browse_once(timeout: float, **_: object) -> list[TableAd]:
        return tables

    monkeypatch.setattr(resolve, "browse_once", browse_once)


async def test_a_table_id_claimed_under_two_host_keys_joins_neither(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The stranger's address sorts first.
    heard(monkeypatch, [ad("10.0.0.9", REAL_KEY), ad("10.0.0.2", OTHER_KEY)])
    with pytest.raises(ResolveError) as refused:
        await resolve.resolve("Kitchen", timeout=1.0)
    said = str(refused.value)
    assert "none was joined" in said
    assert f"p2pdice join 10.0.0.9:7777/{TABLE_ID}" in said
    assert f"p2pdice join 10.0.0.2:7777/{TABLE_ID}" in said
    assert "Kitchen#" not in said  # the short id picks neither of them
    assert "host key a1a1a1a1" in said and "host key 0b0b0b0b" in said


async def test_one_table_id_under_one_host_key_at_two_addresses_is_one_table(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    heard(monkeypatch, [ad("10.0.0.9", REAL_KEY), ad("10.0.0.2", REAL_KEY)])
    target = await resolve.resolve("Kitchen", timeout=1.0)
    assert target.url == f"wss://10.0.0.2:7777/t/{TABLE_ID}"
    assert target.host_key_prefix == REAL_KEY
