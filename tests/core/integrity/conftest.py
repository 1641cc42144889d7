"""Fixtures for the integrity tests (helpers live in helpers.py so other test packages can use them)."""

from __future__ import annotations

from types import ModuleType

import pytest

from tests.core.integrity.helpers import KAPSO_INTEGRITY, KAPSO_REGISTRY, need


@pytest.fixture
def kapso() -> ModuleType:
    return need(KAPSO_INTEGRITY, "kapso.execution.evaluation_integrity")


@pytest.fixture
def kapso_registry() -> ModuleType:
    return need(KAPSO_REGISTRY, "kapso.execution.evaluation_maintainer.registry")
