"""Where ``make vendor`` puts the browser libraries the site ships (Mermaid): a module of its
own, so that the whole build's short circuit can look at them without importing the renderer."""

from __future__ import annotations

from pathlib import Path

VENDOR_DIR = Path(__file__).parent / "vendor"
MERMAID = VENDOR_DIR / "mermaid.min.js"
