"""YAML (and JSON, which is YAML) read from users: plain data only, bounded before it is built.

PyYAML's `safe_load` still expands aliases (a few hundred bytes of nested aliases make gigabytes:
the "billion laughs"), recurses once per nesting level (a RecursionError, not a YAML error, past
about 1,000), builds sets, bytes and dates (`!!set`, `!!binary`, an unquoted 2024-01-01) that no
JSON column can store, and reads text of any size. `load_user_yaml` refuses each of those with a
`UserYamlError` giving the line and column where it starts:

- aliases (`*name`) and anchors are refused outright: a spec never needs them, and refusing them
  makes the built data no bigger than the text;
- nesting deeper than `MAX_DEPTH` levels;
- any tag but the JSON types' (str, int, float, bool, null, map, seq); dates stay text;
- text longer than `max_chars` (the callers pass the JSON body limit, API_MAX_JSON_BYTES);
- more than `max_nodes` values.

It is the YAML half of the input gate (engine/inputgate.py), through which everything else reads YAML.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, cast

import yaml
from yaml.composer import Composer
from yaml.constructor import SafeConstructor
from yaml.error import Mark
from yaml.events import AliasEvent, Event, MappingStartEvent, ScalarEvent, SequenceStartEvent
from yaml.parser import Parser
from yaml.reader import Reader
from yaml.resolver import Resolver
from yaml.scanner import Scanner

from .inputgate import MAX_NODES, InputRefused

# Deep enough for any spec section (the deepest, qos, has 4 levels); shallow enough that neither
# this loader nor json.dumps, yaml.safe_dump or the database ever recurses near Python's limit.
MAX_DEPTH = 32
DEFAULT_MAX_CHARS = 2 * 1024 * 1024

_JSON_TAGS = {
    "tag:yaml.org,2002:str",
    "tag:yaml.org,2002:int",
    "tag:yaml.org,2002:float",
    "tag:yaml.org,2002:bool",
    "tag:yaml.org,2002:null",
    "tag:yaml.org,2002:map",
    "tag:yaml.org,2002:seq",
}


class UserYamlError(InputRefused):
    """Text that is not acceptable YAML; `line` and `column` are 1-based (None when unknown)."""

    def __init__(self, message: str, line: int | None = None, column: int | None = None):
        self.message, self.line, self.column = message, line, column
        ValueError.__init__(self, self.describe("not valid YAML or JSON"))


class _Resolver(Resolver):
    """YAML 1.1's implicit types minus timestamps (a date stays the text written)."""


_Resolver.yaml_implicit_resolvers = {
    ch: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for ch, resolvers in Resolver.yaml_implicit_resolvers.items()
}


class _Constructor(SafeConstructor):
    pass


# Only the JSON types: every other tag (including !!set, !!binary, !!omap, !!timestamp) is refused.
_Constructor.yaml_constructors = {tag: fn for tag, fn in SafeConstructor.yaml_constructors.items() if tag in _JSON_TAGS}


def _refuse_tag(_loader, node):
    raise yaml.constructor.ConstructorError(
        None, None, f"the tag {node.tag!r} is not allowed (plain data only)", node.start_mark
    )


_Constructor.add_constructor(None, _refuse_tag)


def _start(event: Event) -> Mark | None:
    # This loader is pure Python (Reader, not libyaml's CParser), so its events carry yaml.error.Mark; the
    # stubs also allow libyaml's Mark, which ComposerError's signature does not name.
    return cast("Mark | None", event.start_mark)


class _Composer(Composer):
    """Refuses aliases and anchors, and counts nesting as it composes."""

    _depth = 0
    _nodes = 0
    max_depth = MAX_DEPTH
    max_nodes = MAX_NODES

    if TYPE_CHECKING:  # Parser's, which _Loader mixes in alongside this class

        def peek_event(self) -> Event: ...

    def compose_node(self, parent, index):
        event = self.peek_event()
        if isinstance(event, AliasEvent):
            raise yaml.composer.ComposerError(None, None, "aliases (*name) are not allowed", _start(event))
        if isinstance(event, (ScalarEvent, MappingStartEvent, SequenceStartEvent)) and event.anchor is not None:
            raise yaml.composer.ComposerError(None, None, "anchors (&name) are not allowed", _start(event))
        self._depth += 1
        self._nodes += 1
        try:
            if self._depth > self.max_depth:
                raise yaml.composer.ComposerError(
                    None, None, f"nested deeper than {self.max_depth} levels", _start(event)
                )
            if self._nodes > self.max_nodes:
                raise yaml.composer.ComposerError(
                    None, None, f"holds more than {self.max_nodes:,} values", _start(event)
                )
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


class _Loader(Reader, Scanner, Parser, _Composer, _Constructor, _Resolver):
    def __init__(self, stream):
        Reader.__init__(self, stream)
        Scanner.__init__(self)
        Parser.__init__(self)
        _Composer.__init__(self)
        _Constructor.__init__(self)
        _Resolver.__init__(self)


_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff]")


def load_user_yaml(
    text: str, *, max_chars: int = DEFAULT_MAX_CHARS, max_depth: int = MAX_DEPTH, max_nodes: int = MAX_NODES
) -> Any:
    """Plain data (dict, list, str, int, float, bool, None) from YAML or JSON text, or UserYamlError."""
    if not isinstance(text, str):
        raise UserYamlError("must be text")
    if len(text) > max_chars:
        raise UserYamlError(f"the text is {len(text):,} characters; the limit is {max_chars:,}")
    bad = _CONTROL.search(text)
    if bad:
        line = text.count("\n", 0, bad.start()) + 1
        column = bad.start() - (text.rfind("\n", 0, bad.start()) + 1) + 1
        raise UserYamlError(f"control character U+{ord(bad.group()):04X} is not allowed", line, column)
    loader = _Loader(text)
    loader.max_depth, loader.max_nodes = max_depth, max_nodes
    try:
        return loader.get_single_data()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = exc.problem or exc.context or "not valid"
        raise UserYamlError(problem, mark.line + 1 if mark else None, mark.column + 1 if mark else None) from None
    except yaml.YAMLError as exc:
        raise UserYamlError(str(exc)) from None
    except RecursionError:  # pragma: no cover - max_depth stops composing long before
        raise UserYamlError(f"nested deeper than {max_depth} levels") from None
    finally:
        loader.dispose()
