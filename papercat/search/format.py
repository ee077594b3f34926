"""What every search file shares: the indexed fields and how JSON is written."""

from __future__ import annotations

import json
from typing import Any

# Build-time boosts: a word of the title counts most, a coined name (GuardAgent) next, the abstract least.
FIELDS = (("title", 10), ("names", 5), ("abstract", 1))

_JSON = {"ensure_ascii": False, "sort_keys": True, "separators": (",", ":")}
_ENCODER = json.JSONEncoder(**_JSON)  # what json.dumps(value, **_JSON) makes anew on every call
# What _ENCODER.encode writes for a string, by the C function it calls, without that method's checks:
# the index's files are made of some 400,000 strings.
_encode_string = json.encoder.encode_basestring


def _dump(value: Any) -> bytes:
    """Serialize deterministically: sorted keys, compact separators, UTF-8."""
    return _ENCODER.encode(value).encode("utf-8")
