"""Emphasis paired by CommonMark's delimiter algorithm, one brace group at a time."""

from __future__ import annotations

from .tokens import _Delim


def _pair_emphasis(delims: list[_Delim]) -> None:
    """Pair the delimiter runs of one group into <em> and <strong>, as CommonMark does."""
    stack: list[_Delim] = []
    # The lowest stack height worth searching again for a closer of this kind: keeps it linear.
    bottom: dict[tuple[str, bool, int], int] = {}
    for closer in delims:
        while closer.can_close and closer.count:
            key = (closer.char, closer.can_open, closer.length % 3)
            low = bottom.get(key, -1)
            j = _opener(stack, closer, low)
            if j <= low:
                bottom[key] = len(stack) - 1
                break
            opener = stack[j]
            _pair(opener, closer)
            del stack[j + (1 if opener.count else 0):]  # runs in between stay literal
            for k, height in bottom.items():
                bottom[k] = min(height, len(stack) - 1)
        if closer.can_open and closer.count:
            stack.append(closer)


def _opener(stack: list[_Delim], closer: _Delim, low: int) -> int:
    """Return the place of the nearest run on the stack, above ``low``, that ``closer`` closes (else ``low``)."""
    j = len(stack) - 1
    while j > low and not _pairs(stack[j], closer):
        j -= 1
    return j


def _pair(opener: _Delim, closer: _Delim) -> None:
    """Pair an opening and a closing run: <strong> of two delimiters each if both have them, else <em>."""
    used = 2 if opener.count >= 2 and closer.count >= 2 else 1
    tag = "strong" if used == 2 else "em"
    opener.count -= used
    closer.count -= used
    opener.opens.insert(0, tag)
    closer.closes.append(tag)


def _pairs(opener: _Delim, closer: _Delim) -> bool:
    if opener.char != closer.char or not opener.count:
        return False
    # The "rule of 3": in *foo**bar* the "**" is not a closer then an opener of its own.
    if (opener.can_close or closer.can_open) and (opener.length + closer.length) % 3 == 0:
        return opener.length % 3 == 0 and closer.length % 3 == 0
    return True
