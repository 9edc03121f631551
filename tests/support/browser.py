"""Headless Chromium driven by selenium, for the viewer's tests and its screenshots.

Debian's ``chromium`` and ``chromium-driver`` are installed by ``make test``; without them the browser
tests are skipped, except under CI=true, where they fail.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest


@contextmanager
def chromium(width: int = 1000, height: int = 700) -> Iterator[Any]:
    """A headless Chromium (a selenium WebDriver), quit at the end."""
    browser, driver = shutil.which("chromium"), shutil.which("chromedriver")
    if not (browser and driver):
        if os.environ.get("CI") == "true":
            pytest.fail(
                "chromium and chromedriver are not installed, and CI needs them (make test installs them)"
            )
        pytest.skip("chromium and chromedriver are not installed (make test installs them)")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    for argument in (
        "--headless=new",
        "--no-sandbox",
        "--disable-dev-shm-usage",
        "--disable-gpu",
        f"--window-size={width},{height}",
    ):
        options.add_argument(argument)
    options.binary_location = browser
    session = webdriver.Chrome(service=Service(driver), options=options)
    try:
        yield session
    finally:
        session.quit()
