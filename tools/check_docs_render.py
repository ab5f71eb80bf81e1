"""Build the documentation and open its main pages in a headless browser (Chromium from
the distribution's packages): each page must render its title and main content in the
browser's DOM, and a screenshot of each is kept (a CI artifact).

    python tools/check_docs_render.py --out docs/_build/screenshots

Exits 1 naming the page that did not render; 2 when no Chromium is found.
"""
from __future__ import annotations

import argparse
import itertools
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# page -> text its rendered DOM must hold
PAGES = {
    "index.html": "Tutorials",
    "tutorials/python.html": "Players and searches",
    "reference/api.html": "cythello.MCTSPlayer",
    "reference/settings.html": "time_limit",
    "results/studies.html": "Multi-ProbCut",
    "results/benchmarks.html": "yardstick",
}


def browser() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome", "chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "_build" / "screenshots")
    ap.add_argument("--html", type=Path, help="an already built site (default: build it)")
    ap.add_argument("--widths", default="1280", help="window widths, e.g. 1280,420 (a "
                    "desktop and a phone)")
    args = ap.parse_args()
    widths = [int(w) for w in args.widths.split(",")]
    chrome = browser()
    if chrome is None:
        print("no Chromium found (apt-get install chromium)", file=sys.stderr)
        return 2
    html = args.html
    if html is None:
        html = ROOT / "docs" / "_build" / "html"
        subprocess.run([sys.executable, "-m", "sphinx", "-W", "-q", "-b", "html",
                        str(ROOT / "docs"), str(html)], check=True)
    args.out.mkdir(parents=True, exist_ok=True)
    failed = []
    with tempfile.TemporaryDirectory() as profile:
        for (page, expected), width in itertools.product(PAGES.items(), widths):
            flags = ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                     f"--window-size={width},1600"]
            url = (html / page).resolve().as_uri()
            common = [chrome, *flags, f"--user-data-dir={profile}"]
            dom = subprocess.run([*common, "--dump-dom", url], capture_output=True,
                                 text=True, timeout=120).stdout
            suffix = "" if width == 1280 else f"-{width}"
            shot = args.out / (page.replace("/", "-").replace(".html", f"{suffix}.png"))
            subprocess.run([*common, f"--screenshot={shot}", url], capture_output=True,
                           timeout=120)
            size = shot.stat().st_size if shot.exists() else 0
            ok = expected in dom and size > 20_000        # a blank page is a few kB
            print(f"{'ok ' if ok else 'BAD'} {page}: {len(dom):,} characters of DOM, "
                  f"screenshot {size:,} bytes -> {shot}")
            if not ok:
                failed.append(f"{page} at {width} px")
    if failed:
        print(f"did not render: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
