"""Take the docs' pictures of the bundled site: the Transformer page, desktop and phone, and
the reading aids (link previews, heading links, the theme switch); and of a vault's site: a
note of the demo vault (``docs/demo-vault/``) with callouts, embeds and an image.

    python scripts/screenshots.py            # or: make screenshots
    python scripts/screenshots.py theme-phone   # only that picture

Builds the bundled wiki with this checkout's kbtool (into a temporary folder, so ``site/`` is
left alone; the demo vault after ``kbtool init --yes`` in a copy of it), serves it on
127.0.0.1, opens the page in Debian's headless ``chromium`` through Playwright (never
Playwright's own browser download) and writes ``docs/images/*.png``. Chinese
text needs a CJK font on the machine (Debian: ``apt-get install fonts-noto-cjk``); without one
it is drawn as boxes, so the script refuses to run. Run it again after a change to the site's
look and commit the images it writes.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import http.server
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
IMAGES = ROOT / "docs" / "images"
PAGE = "wiki/concepts/transformer.html"
#: name -> (viewport width, height, device scale, page, what a reader does first): a laptop
#: screen and a common phone, each showing a feature of the site.
SHOTS: dict[str, tuple[int, int, int, str, str]] = {
    "transformer-desktop": (1280, 800, 1, PAGE, ""),
    "transformer-phone": (390, 844, 2, PAGE, ""),
    "preview-desktop": (1280, 720, 1, "wiki/methods/action-chunking.html", "hover-link"),
    "preview-phone": (390, 844, 2, "wiki/methods/action-chunking.html", "tap-marker"),
    "long-page-desktop": (1280, 720, 1, PAGE, "copy-heading"),
    "similar-phone": (390, 844, 2, "wiki/concepts/mamba.html", "similar"),
    "hubs-desktop": (1280, 800, 1, "hubs.html", ""),
    "changes-desktop": (1280, 800, 1, "changes.html", ""),
    "theme-desktop": (1280, 800, 1, PAGE, "choose-dark"),
    "theme-phone": (390, 844, 2, PAGE, "dark-code"),
    "theme-graph-desktop": (1280, 800, 1, "graph.html", "choose-dark"),
    "graph-panel-desktop": (1280, 900, 1, "graph.html", "graph-panel"),
}
VAULT = ROOT / "docs" / "demo-vault"
VAULT_PAGE = "Garden/Tomatoes.html"
#: the pictures of the demo vault's site, as SHOTS
VAULT_SHOTS: dict[str, tuple[int, int, int, str, str]] = {
    "vault-desktop": (1280, 1200, 1, VAULT_PAGE, ""),
    "vault-phone": (390, 844, 2, VAULT_PAGE, ""),
}


def _act(page: Any, action: str) -> None:
    """Do what the picture shows: point at a link (its preview), copy a heading's link (the
    contents marking its section), tap a link's marker, choose the dark theme."""
    if action == "hover-link":
        page.locator("main .page-body a[href$='.html']").nth(1).hover()
        page.locator("#kb-preview").wait_for(state="visible")
    elif action == "copy-heading":
        heading = page.locator("main h2").nth(3)
        heading.evaluate("h => { h.scrollIntoView(); scrollBy(0, -24); }")
        heading.hover()
        heading.locator(".heading-link").click()
        page.locator(".heading-link.copied").wait_for()
    elif action == "similar":
        page.locator("#similar").scroll_into_view_if_needed()
    elif action in ("choose-dark", "dark-code"):
        page.locator('.theme-switch [data-choice="dark"]').click()
        page.wait_for_function("document.documentElement.dataset.theme === 'dark'")
        if action == "dark-code":
            page.locator(".cell").nth(1).evaluate("c => { c.scrollIntoView(); scrollBy(0, -16); }")
        page.wait_for_timeout(300)  # the graph draws on the next frame
    elif action == "graph-panel":
        page.select_option("#graph-depth", "1")
        page.fill("#graph-find", "Transformer")
        page.press("#graph-find", "Enter")
        page.locator("#graph-panel").wait_for(state="visible")
        page.wait_for_timeout(300)
    elif action == "tap-marker":
        page.locator("main .page-body .preview-mark").nth(1).tap()
        page.locator("#kb-preview").wait_for(state="visible")


CHROMIUM = os.environ.get("KBTOOL_CHROMIUM", "/usr/bin/chromium")


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@contextlib.contextmanager
def _served(folder: Path) -> Iterator[str]:
    handler = functools.partial(_QuietHandler, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/"
    finally:
        server.shutdown()
        server.server_close()


def _build(into: Path) -> Path:
    """The bundled site, built from a copy of the wiki so that the repository's site/ stays."""
    for name in ("wiki", "sources"):
        shutil.copytree(ROOT / name, into / name)
    shutil.copy2(ROOT / "pyproject.toml", into / "pyproject.toml")
    subprocess.run([sys.executable, "-m", "kbtool", "-C", str(into), "build"], check=True)
    return into / "site"


def _build_vault(into: Path) -> Path:
    """The demo vault's site, from a copy of it configured as ``kbtool init --yes`` does."""
    shutil.copytree(VAULT, into)
    for command in (["init", "--yes"], ["build"]):
        run = [sys.executable, "-m", "kbtool", "-C", str(into), *command]
        subprocess.run(run, check=True, stdout=subprocess.DEVNULL)
    return into / "site"


def _has_cjk_font() -> bool:
    listed = subprocess.run(["fc-list", ":lang=zh"], capture_output=True, text=True, check=False)
    return bool(listed.stdout.strip())


def _shoot(
    base: str,
    out: Path,
    scheme: str,
    shots: dict[str, tuple[int, int, int, str, str]],
) -> list[Path]:
    from playwright.sync_api import sync_playwright

    written = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--headless", "--no-sandbox"])
        for name, (width, height, scale, url, action) in shots.items():
            context = browser.new_context(
                viewport={"width": width, "height": height},
                device_scale_factor=scale,
                color_scheme=scheme,  # type: ignore[arg-type]
                is_mobile=width < 600,
                has_touch=width < 600,
                permissions=["clipboard-read", "clipboard-write"],
            )
            # The site makes no request elsewhere; a picture must not depend on one either.
            context.route(
                "**/*", lambda r: r.continue_() if r.request.url.startswith(base) else r.abort()
            )
            page = context.new_page()
            page.goto(base + url, wait_until="networkidle")
            page.evaluate("document.fonts.ready")
            _act(page, action)
            path = out / f"{name}.png"
            page.screenshot(path=str(path))
            written.append(path)
            context.close()
        browser.close()
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=IMAGES, help="folder for the PNG files")
    parser.add_argument("--scheme", choices=["light", "dark"], default="light")
    every = {**SHOTS, **VAULT_SHOTS}
    parser.add_argument("names", nargs="*", help=f"only these pictures, of: {', '.join(every)}")
    args = parser.parse_args(argv)
    if unknown := sorted(set(args.names) - set(every)):
        parser.error(f"no such picture: {', '.join(unknown)}")
    if not (Path(CHROMIUM).exists() or shutil.which(CHROMIUM)):
        print(f"no Chromium at {CHROMIUM}: apt-get install chromium", file=sys.stderr)
        return 2
    if not _has_cjk_font():
        print("no Chinese font: apt-get install fonts-noto-cjk", file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    for shots, build in ((SHOTS, _build), (VAULT_SHOTS, _build_vault)):
        wanted = {
            name: shot for name, shot in shots.items() if not args.names or name in args.names
        }
        if not wanted:
            continue
        with tempfile.TemporaryDirectory(prefix="kbtool-screenshots-") as scratch:
            site = build(Path(scratch) / "repo")
            with _served(site) as base:
                for path in _shoot(base, args.out, args.scheme, wanted):
                    print(f"wrote {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
