"""Session-wide setup: run every test inside a private network namespace when possible."""

from __future__ import annotations

import pytest

from tests.support import netns


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--run-slow", action="store_true", help="also run tests marked slow (long soaks)"
    )


def pytest_configure(config: pytest.Config) -> None:
    netns.isolate()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("--run-slow"):
        return
    skip = pytest.mark.skip(reason="slow: run with --run-slow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


def pytest_report_header(config: pytest.Config) -> str:
    if netns.isolated():
        return "network: private namespace (loopback only); nothing leaves this machine"
    return f"network: NOT isolated ({netns.why_not()}); mDNS tests are skipped"


@pytest.fixture
def private_network() -> None:
    if not netns.isolated():
        pytest.skip(f"mDNS tests need a private network namespace: {netns.why_not()}")
