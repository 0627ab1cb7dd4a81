"""Regenerate the README screenshots: start the app, open each view in Debian's Chromium, save a PNG.

    .venv/bin/python docs/make_screenshots.py            # every screenshot
    .venv/bin/python docs/make_screenshots.py explorer   # only the named ones

Uses the same server and browser recipe as the browser tests (tests/browser_support.py): /usr/bin/chromium driven
by Playwright, never a downloaded browser. Each PNG is saved with a 256-colour palette, which keeps text sharp on
the page's flat backgrounds, and must stay under 300 KB.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

from PIL import Image

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))

from browser_support import (  # noqa: E402 (needs the path above)
    VIEWPORT,
    ExplorerPage,
    chromium_browser,
    chromium_missing_reason,
    running_app,
    save_screenshot,
)

OUT = REPO / "docs" / "screenshots"
MAX_BYTES = 300 * 1024


def explorer_default(explorer: ExplorerPage) -> None:
    """The explorer as a newcomer first sees it: the "sweet pastry" sample, its metrics, list and charts."""
    explorer.open()
    explorer.wait_for_charts()


#: name -> how to bring the page into the state to photograph (the whole page is saved).
SHOTS: dict[str, Callable[[ExplorerPage], None]] = {
    "explorer": explorer_default,
}


def shrink(path: Path, max_bytes: int = MAX_BYTES) -> int:
    """Re-save ``path`` with an adaptive 256-colour palette (the page's flat colours survive it; the file shrinks
    to about 40 %) and return its size; fail when even that is over ``max_bytes``."""
    with Image.open(path) as picture:
        palette = picture.convert("RGB").quantize(colors=256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    palette.save(path, optimize=True)
    size = path.stat().st_size
    if size > max_bytes:
        raise SystemExit(f"{path}: {size / 1024:.0f} KB even with a 256-colour palette; the limit is "
                         f"{max_bytes // 1024} KB. Make the view smaller or split it into two shots.")
    return size


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", metavar="NAME",
                        help=f"screenshots to make (default: all of {', '.join(SHOTS)})")
    parser.add_argument("--out", type=Path, default=OUT, help="output folder (default: docs/screenshots)")
    args = parser.parse_args(argv)
    reason = chromium_missing_reason()
    if reason:
        parser.error(reason)
    unknown = [name for name in args.names if name not in SHOTS]
    if unknown:
        parser.error(f"no screenshot called {', '.join(unknown)}; choose from {', '.join(SHOTS)}")
    names = args.names or list(SHOTS)
    args.out.mkdir(parents=True, exist_ok=True)
    with running_app() as base_url, chromium_browser() as browser:
        context = browser.new_context(viewport=VIEWPORT)
        for name in names:
            page = context.new_page()
            SHOTS[name](ExplorerPage(page, base_url, artifact_prefix=name))
            path = args.out / f"{name}.png"
            save_screenshot(page, path, whole_page=True)
            size = shrink(path)
            with Image.open(path) as picture:
                width, height = picture.size
            print(f"{path.relative_to(REPO) if path.is_relative_to(REPO) else path}: {width}x{height}, {size / 1024:.0f} KB")
            page.close()
        context.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
