"""Shared test fixtures: where our games and the shared corpus are."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings
from support.paths import CORPUS

# Property tests check behaviour, never time: a loaded machine (CI, parallel workers) must not fail them.
settings.register_profile("gdl", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("gdl")

#: Test modules whose tests all run in one pytest-xdist worker, as they share something slow to start:
#: the Ray tests share one local cluster (and kill its workers, which must not be another worker's).
ONE_WORKER = {"test_cluster.py": "ray", "test_cluster_slow.py": "ray"}


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """Tests go one at a time to whichever worker is free, as with ``--dist load``, except those of
    :data:`ONE_WORKER` (xdist's own ``xdist_group`` marks are lost with pytest 9's node ids)."""
    from xdist.scheduler import LoadScopeScheduling

    class Scheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            module = nodeid.split("::", 1)[0].rsplit("/", 1)[-1]
            return ONE_WORKER.get(module, nodeid)

    return Scheduling(config, log)




@pytest.fixture
def corpus() -> Path:
    """The shared corpus; tests that need it are skipped cleanly when it is absent."""
    if not CORPUS.is_dir():
        pytest.skip("../shared/corpus is not present")
    return CORPUS
