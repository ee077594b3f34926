"""What makes a candidate title read as a title, and the noun phrases a title falls back on.

A title names a thing; a sentence ("Missing data is a crucial issue ...") or a phrase pointing
outside itself ("a framework that validates its effectiveness") does not. Where an abstract states
no contribution by a cue, its title comes from what "we" do to something ("we give X", "we initiate
the study of X") or from the subject of its first sentence.
"""

from __future__ import annotations

import re

from .reading import _clip, _tidy

# Words that make a title a sentence: a finite verb, or "we" outside a name.
_FINITE = re.compile(r"\b(?:is|are|was|were|has|have|had|can|could|will|would|should|may|might|does|do|did|"
                     r"we|our|us)\b", re.IGNORECASE)
# Words that point to something the title does not say ("their own goals" points back into it).
_POINTING = re.compile(r"\b(?:their|its|this|these|those|they|it|them)\b(?! own\b)", re.IGNORECASE)
# "How training data memorization can surface ...": a question the title asks, not a sentence.
_QUESTION = re.compile(r"^(?:how|why|when|whether|what)\s", re.IGNORECASE)
_NAME_HEAD = re.compile(r"^[^:]{1,60}: ")
# "we <verb> <determiner> ...": what we do something to. Verbs that use a thing rather than make it
# ("we use", "we compare") and auxiliaries say nothing of the contribution.
_WE_DO = re.compile(r"\b[Ww]e (?:\w+ly )?(?!use|employ|apply|adopt|follow|compare|evaluate|test|train|run|"
                    r"also|then|can|could|will|would|may|might|must|need|are|were|have|had|do|did|see|note|"
                    r"observe|argue|believe|hope|want|show|find|demonstrate|prove|conclude)"
                    r"([a-z]+) (?:on |to |of )?((?:the|a|an|two|three|several|new|first|novel)\b.*)")
_FRAME = re.compile(r"^(?:the|a) (?:study|problem|question|task|setting|issue|notion|case) of\s+", re.IGNORECASE)
_SUBJECT = re.compile(r"^(.+?)\s(?:is|are|was|were|has|have|can|could|may|might|will|would|consists?|remains?|"
                      r"plays?|provides?|allows?|enables?|requires?|suffers?|relies|achieves?)\b")
_CUT = re.compile(r"\s(?=(?:that|which|where|while|and|to|for|with|by|in|on|of|via|from)\s)")


def body(title: str) -> str:
    """Return a title without its "Name: " head."""
    return _NAME_HEAD.sub("", title, count=1)


def reads_well(title: str) -> bool:
    """Return whether a title is a phrase of four words or more that needs nothing outside it."""
    rest = body(title)
    finite = _FINITE.search(rest)
    return (len(title.split()) >= 4 and not _POINTING.search(rest)
            and not (finite and (finite[0].lower() in ("we", "our", "us") or not _QUESTION.match(rest))))


def trimmed(title: str) -> str:
    """Return a title cut before the phrase that makes it a sentence or points outside it ("... that
    utilizes this sparsity"), where four words or more are left; else the title."""
    rest = body(title)
    flaw = min((m.start() for m in (_FINITE.search(rest), _POINTING.search(rest)) if m), default=None)
    if flaw is None:
        return title
    at = len(title) - len(rest) + flaw
    for cut in reversed([m.start() for m in _CUT.finditer(title, 0, at)]):
        piece = _tidy(title[:cut])
        if len(piece.split()) >= 4 and reads_well(piece):
            return piece
    return title


def object_phrase(sentences: list[tuple[int, str]]) -> str:
    """Return what the first "we <verb> the/a ..." of the abstract does something to, without "the
    study of" or "the problem of"; "" if there is none."""
    for _, sentence in sentences:
        done = _WE_DO.search(sentence)
        if done:
            phrase = _clip(_FRAME.sub("", done[2]))
            if len(phrase.split()) >= 3:
                return phrase
    return ""


def subject_phrase(sentence: str) -> str:
    """Return the subject of a sentence ("Submodular function minimization" of "... is well studied")
    where it has two words or more; else ""."""
    subject = _SUBJECT.match(_clip(sentence) + " ")
    phrase = _tidy(subject[1]) if subject else ""
    return phrase if len(phrase.split()) >= 2 and not _POINTING.search(phrase) else ""
