"""Take the docs' pictures of the bundled site: the Transformer page, desktop and phone, and
the reading aids (docs/reading.md).

    python scripts/screenshots.py            # or: make screenshots

Builds the bundled wiki with this checkout's kbtool (into a temporary folder, so ``site/`` is
left alone), serves it on 127.0.0.1, opens the page in Debian's headless ``chromium`` through
Playwright (never Playwright's own browser download) and writes ``docs/images/*.png``. Chinese
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
#: name -> (page, viewport width, height, device scale, the element to picture or None for
#: the screen): a laptop screen and a common phone.
SHOTS: dict[str, tuple[str, int, int, int, str | None]] = {
    "transformer-desktop": ("wiki/concepts/transformer.html", 1280, 800, 1, None),
    "transformer-phone": ("wiki/concepts/transformer.html", 390, 844, 2, None),
    "similar-phone": ("wiki/concepts/mamba.html", 390, 844, 2, "#similar"),
    "hubs-desktop": ("hubs.html", 1280, 800, 1, None),
    "changes-desktop": ("changes.html", 1280, 800, 1, None),
}
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


def _has_cjk_font() -> bool:
    listed = subprocess.run(["fc-list", ":lang=zh"], capture_output=True, text=True, check=False)
    return bool(listed.stdout.strip())


def _shoot(base: str, out: Path, scheme: str) -> list[Path]:
    from playwright.sync_api import sync_playwright

    written = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--headless", "--no-sandbox"])
        for name, (page_path, width, height, scale, part) in SHOTS.items():
            context = browser.new_context(
                viewport={"width": width, "height": height},
                device_scale_factor=scale,
                color_scheme=scheme,  # type: ignore[arg-type]
            )
            # The site makes no request elsewhere; a picture must not depend on one either.
            context.route(
                "**/*", lambda r: r.continue_() if r.request.url.startswith(base) else r.abort()
            )
            page = context.new_page()
            page.goto(base + page_path, wait_until="networkidle")
            page.evaluate("document.fonts.ready")
            path = out / f"{name}.png"
            if part is None:
                page.screenshot(path=str(path))
            else:
                page.locator(part).screenshot(path=str(path))
            written.append(path)
            context.close()
        browser.close()
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=IMAGES, help="folder for the PNG files")
    parser.add_argument("--scheme", choices=["light", "dark"], default="light")
    args = parser.parse_args(argv)
    if not (Path(CHROMIUM).exists() or shutil.which(CHROMIUM)):
        print(f"no Chromium at {CHROMIUM}: apt-get install chromium", file=sys.stderr)
        return 2
    if not _has_cjk_font():
        print("no Chinese font: apt-get install fonts-noto-cjk", file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="kbtool-screenshots-") as scratch:
        site = _build(Path(scratch))
        with _served(site) as base:
            for path in _shoot(base, args.out, args.scheme):
                print(f"wrote {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
