from __future__ import annotations

import os
from pathlib import Path

import pytest

from netcfg.inventory import load_fabric
from netcfg.model import Fabric
from netcfg.policy import Policy, load_policy

ROOT = Path(__file__).resolve().parent.parent
LAB = ROOT / "inventories" / "lab"
# The corpus lives outside the repository: `make conformance` runs those tests when it exists.
collect_ignore = [] if os.environ.get("NETCFG_CONFORMANCE") else ["conformance"]


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--update-golden", action="store_true", help="rewrite golden files from current output")


@pytest.fixture
def update_golden(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--update-golden"))


@pytest.fixture(scope="session")
def lab_fabric() -> Fabric:
    return load_fabric(LAB)


@pytest.fixture(scope="session")
def lab_policy(lab_fabric: Fabric) -> Policy:
    return load_policy(lab_fabric.policy_ref)
