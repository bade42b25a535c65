"""pytest configuration of the numerics suite: a fresh random seed per run,
printed in the header and in every failure (rerun with QS_SEED=<seed>)."""

import os
import random
import sys
import zlib

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

SEED = int(os.environ.get("QS_SEED", random.SystemRandom().randrange(2**31)))


def pytest_report_header(config):
    return f"numerics seed: {SEED} (rerun with QS_SEED={SEED})"


@pytest.fixture
def rng(request):
    # One stream per test, derived from the run's seed and the test's name.
    return np.random.default_rng([SEED, zlib.crc32(request.node.nodeid.encode())])


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.failed:
        report.sections.append(("numerics seed", f"QS_SEED={SEED}"))
