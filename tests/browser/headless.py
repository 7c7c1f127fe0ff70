"""Headless Chromium for the browser tests and the screenshots: find it, launch it, open a page
offline and record every request, console error and uncaught error the page makes.

Driven through Playwright's Python package with the system's Chromium (`executable_path`):
Playwright's own browser download is never used.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
FLAGS = ("--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--no-first-run", "--disable-sync")
INSTALL_HINT = ("install Debian's chromium (apt-get install chromium) and the dev extras "
                "(make venv), or set CHROMIUM to a Chromium binary")


def chromium_path() -> str | None:
    """The Chromium to drive: $CHROMIUM, or the first Chromium on PATH."""
    explicit = os.environ.get("CHROMIUM")
    if explicit:
        return explicit if Path(explicit).is_file() else None
    return next((found for name in CANDIDATES if (found := shutil.which(name))), None)


def unavailable_reason() -> str | None:
    """Why the browser cannot be driven here (None when it can)."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return f"the playwright package is not installed; {INSTALL_HINT}"
    if chromium_path() is None:
        return f"no Chromium found; {INSTALL_HINT}"
    return None


@contextmanager
def launched() -> Iterator[Any]:
    """A headless Chromium browser (Playwright `Browser`), closed on exit."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium_path(), headless=True,
                                             args=list(FLAGS))
        try:
            yield browser
        finally:
            browser.close()


@dataclass
class PageLog:
    """What a page did besides rendering: requests to anything but itself, and errors."""

    url: str
    requests: list[str] = field(default_factory=list)
    console_errors: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)


class Viewer:
    """One browser context with a fixed viewport, reused for every page opened in it (a fresh
    context costs about a second; a navigation a tenth of that).

    Every request other than the page being opened is recorded and refused, so a page that
    would fetch something (a font, a script, an image) is caught whether or not the network
    works; console errors and uncaught errors are recorded too.
    """

    def __init__(self, browser: Any, width: int, height: int = 900) -> None:
        self.width = width
        self.log = PageLog("")
        self.context = browser.new_context(viewport={"width": width, "height": height},
                                           service_workers="block")
        self.context.route("**/*", self._route)
        self.page = self.context.new_page()
        self.page.on("console", self._console)
        self.page.on("pageerror", lambda error: self.log.page_errors.append(str(error)))

    def _route(self, request_route: Any) -> None:
        if request_route.request.url == self.log.url:
            request_route.continue_()
        else:
            self.log.requests.append(request_route.request.url)
            request_route.abort()

    def _console(self, message: Any) -> None:
        if message.type == "error":
            self.log.console_errors.append(message.text)

    def open(self, path: Path) -> tuple[Any, PageLog]:
        """Load the HTML file at path; the page and what it did while loading."""
        self.log = PageLog(path.resolve().as_uri())
        self.page.goto(self.log.url, wait_until="load")
        return self.page, self.log

    def close(self) -> None:
        """Close the context and its page."""
        self.context.close()
