"""Run the Node scripts of tests/js (lunr.js and static/search/engine.js) from the Python tests.

Not a test file. Node reads the vendored static/vendor/lunr/lunr.js: nothing is installed.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
JS = ROOT / "tests" / "js"
NODE = shutil.which("node") or "/usr/bin/node"


def node(script: str, payload: Any) -> Any:
    """Run ``tests/js/<script>`` with ``payload`` as JSON on stdin; return its JSON output."""
    done = subprocess.run([NODE, str(JS / script)], input=json.dumps(payload), capture_output=True,
                          check=False, text=True, encoding="utf-8", timeout=300)
    if done.returncode != 0:
        raise AssertionError(f"node tests/js/{script} failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return json.loads(done.stdout)


def search(site: Path, queries: list[dict[str, Any]], fresh: bool = False,
           **options: Any) -> list[dict[str, Any]]:
    """Run ``queries`` ({q, venue, topic, limit}) through engine.js against ``site``'s search/ folder."""
    return node("search.js", {"site": str(site), "queries": queries, "fresh": fresh, "options": options})
