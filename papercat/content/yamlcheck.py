"""Read a YAML file as a node tree and check it, collecting problems with their lines."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from ..errors import Problem


class YamlChecker:
    """Collects problems found while walking a YAML node tree of one file."""

    def __init__(self, path: str):
        self.path = path
        self.problems: list[Problem] = []

    def fail(self, node: yaml.Node | None, message: str) -> None:
        self.problems.append(Problem(self.path, node.start_mark.line + 1 if node else 0, message))

    def mapping(self, node: yaml.Node, what: str) -> dict[str, tuple[yaml.Node, yaml.Node]] | None:
        """Return ``{key: (key node, value node)}``, or None after reporting a wrong type."""
        if not isinstance(node, yaml.MappingNode):
            self.fail(node, f"{what} is {describe(node)}; expected a mapping of keys to values")
            return None
        out: dict[str, tuple[yaml.Node, yaml.Node]] = {}
        for key, value in node.value:
            name = key.value if isinstance(key, yaml.ScalarNode) else str(key)
            if name in out:
                self.fail(key, f'key "{name}" appears twice in {what}; expected each key once')
            out[name] = (key, value)
        return out

    def unknown_keys(self, found: dict, allowed: list[str], what: str) -> None:
        for name, (key, _) in found.items():
            if name not in allowed:
                self.fail(key, f'unknown key "{name}" in {what}; expected one of: {", ".join(allowed)}')

    def string(self, node: yaml.Node, what: str, pattern: re.Pattern | None = None,
               example: str = "") -> str | None:
        if not isinstance(node, yaml.ScalarNode) or node.tag != "tag:yaml.org,2002:str":
            self.fail(node, f"{what} is {describe(node)}; expected text")
            return None
        value = node.value.strip()
        if not value:
            self.fail(node, f"{what} is empty; expected text")
            return None
        if pattern and not pattern.match(value):
            self.fail(node, f'{what} is "{value}"; expected {example}')
            return None
        return value

    def number(self, node: yaml.Node, what: str) -> float | None:
        tags = ("tag:yaml.org,2002:int", "tag:yaml.org,2002:float")
        if isinstance(node, yaml.ScalarNode) and node.tag in tags:
            value = float(yaml.safe_load(node.value))
            if value > 0:
                return value
        self.fail(node, f"{what} is {describe(node)}; expected a positive number")
        return None


def describe(node: yaml.Node | None) -> str:
    """Describe what a node holds, for messages: 'a list', 'the number 3', 'the text "x"'."""
    if isinstance(node, yaml.MappingNode):
        return "a mapping"
    if isinstance(node, yaml.SequenceNode):
        return "a list"
    if node is None or node.tag == "tag:yaml.org,2002:null":
        return "empty"
    if node.tag == "tag:yaml.org,2002:str":
        return f'the text "{node.value}"'
    return str(node.value)


def read_mapping(path: Path, shown: str, what: str) -> tuple[YamlChecker, yaml.Node | None,
                                                            dict[str, tuple[yaml.Node, yaml.Node]] | None]:
    """Read a YAML file whose top is a mapping: return a checker for it, its root node and that mapping.

    The mapping is None when the file is missing, empty (only comments) or not a mapping; the
    checker holds the problems found (none for a missing or empty file).
    """
    check = YamlChecker(shown)
    if not path.exists():
        return check, None, None
    root, check.problems = compose(path, shown)
    if check.problems or root is None:
        return check, root, None
    return check, root, check.mapping(root, what)


def compose(path: Path, shown: str) -> tuple[yaml.Node | None, list[Problem]]:
    """Parse a YAML file into nodes (which keep their lines); a parse error becomes a problem."""
    try:
        return yaml.compose(path.read_text(encoding="utf-8")), []
    except UnicodeDecodeError as exc:
        return None, [Problem(shown, 0, f"byte offset {exc.start} is not UTF-8; expected UTF-8 text")]
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark else 0
        reason = getattr(exc, "problem", None) or str(exc)
        return None, [Problem(shown, line, f"not valid YAML ({reason})")]
