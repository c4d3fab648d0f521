"""What a tool costs the model: token counts of tool definitions, offline, per model family.

**The serialisation counted** is a tool's entry in a request's tool list, as the provider's API
receives it, compact JSON (``json.dumps`` with ``separators=(",", ":")`` and
``ensure_ascii=False``), keys in this order, the input schema as the server gave it:

* ``claude`` (Anthropic's Messages API): ``{"name":…,"description":…,"input_schema":…}``
* ``openai`` (OpenAI's Responses API): ``{"type":"function","name":…,"description":…,
  "parameters":…}``

The name is the tool's wire name (what the model is sent). A provider turns that entry into
prompt text its own way, which it does not publish; the count is of the entry, not of that
rendering.

**Tokenizers.** Both families are counted with ``o200k_base`` from ``quicktok`` (the
``quicktok-v1`` package), which ships its vocabularies and needs no network. For ``openai``
that is the model's own encoding: the count is exact (checked equal to the reference
implementations ``bpe-openai`` for o200k and ``tiktoken`` for cl100k on the demo catalogs). For
``claude`` it is an estimate: Claude's tokenizer is not published, and the one offline
reconstruction (``ctok``) needs Python 3.12. On the 150-tool demo catalog it counted 18,005
tokens where o200k counts 14,354 (o200k is about 20 % low).

**The per-request overhead** (the tool-use system prompt a provider adds once per request that
has tools) is kept apart, never added per tool: :attr:`ModelFamily.request_overhead`.

**Cost.** Loading the encoding takes 0.5 to 1.5 s of CPU, once per process, on the first count
that is not known yet, and holds the interpreter's lock throughout (run it off the UI thread:
:meth:`TokenCounter.warm`). After that a tool costs a few microseconds, and each distinct
definition is counted once: :class:`TokenCounter` keeps every count by the definition's text,
and by the very ``WireTool`` object, so a toggle or a reload that leaves a definition unchanged
recounts nothing. The process's counter (:data:`TOKEN_COUNTER`) also keeps its counts across
processes (:mod:`.token_cache`, by the digest of the text counted) and reads them before it
would load the encoding: a catalog counted before is counted again without loading it. A caller
that must not wait for the load (the picker's UI thread) counts with ``may_load=False``: a
definition not kept then raises :class:`CountNotKept` instead.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Literal, Protocol

from agentty_tui.catalog.token_cache import TokenCache, definition_digest
from agentty_tui.catalog.values import WireTool

__all__ = [
    "DEFAULT_FAMILY",
    "FAMILIES",
    "TOKEN_COUNTER",
    "CountNotKept",
    "FamilyName",
    "ModelFamily",
    "TokenCounter",
    "tool_definition",
]

FamilyName = Literal["claude", "openai"]
"""A model family whose tool definitions are counted."""


@dataclass(frozen=True, slots=True)
class ModelFamily:
    """How one model family's tool definitions are serialised and counted."""

    name: FamilyName
    """The family's key in JSON output and config."""
    label: str
    """What the family is called in text ("Claude", "OpenAI")."""
    encoding: str
    """The ``quicktok`` encoding its counts use."""
    exact: bool
    """Whether ``encoding`` is the family's own tokenizer (else the count is an estimate)."""
    request_overhead: int | None
    """Tokens the provider adds once per request that carries tools (its tool-use system
    prompt), as it documents them; ``None`` where it publishes no figure."""
    schema_key: str
    """The key the input schema goes under in the family's tool entry."""
    prefix: Mapping[str, str]
    """Keys that come before ``name`` in the family's tool entry (OpenAI's ``type``)."""


FAMILIES: Mapping[FamilyName, ModelFamily] = MappingProxyType(
    {
        "claude": ModelFamily(
            name="claude",
            label="Claude",
            encoding="o200k_base",
            exact=False,
            # Anthropic's tool-use pricing table: 346 tokens with tool_choice auto or none for
            # its Claude 4 models (313 with any or tool).
            request_overhead=346,
            schema_key="input_schema",
            prefix=MappingProxyType({}),
        ),
        "openai": ModelFamily(
            name="openai",
            label="OpenAI",
            encoding="o200k_base",
            exact=True,
            request_overhead=None,  # OpenAI publishes no figure for its function-calling prompt
            schema_key="parameters",
            prefix=MappingProxyType({"type": "function"}),
        ),
    }
)
"""Every family counted, by name."""

DEFAULT_FAMILY: FamilyName = "claude"
"""The family that the token budget, the picker and ``catalog``'s text count in."""


def _plain(value: object) -> object:
    # The model's schemas are frozen (read-only mappings inside); json needs dicts. The exact
    # type first: an ABC check per nested mapping was a third of a kept count's cost.
    if type(value) is MappingProxyType or isinstance(value, Mapping):
        return dict(value)
    raise TypeError(f"{type(value).__name__} is not JSON")


def tool_definition(
    family: ModelFamily, name: str, description: str, input_schema: Mapping[str, Any]
) -> str:
    """The text that is counted for one tool in ``family`` (see the module docstring)."""
    entry: dict[str, object] = dict(family.prefix)
    entry["name"] = name
    entry["description"] = description
    entry[family.schema_key] = input_schema
    return json.dumps(entry, separators=(",", ":"), ensure_ascii=False, default=_plain)


class CountNotKept(LookupError):
    """A count asked for without loading the encoding (``may_load=False``) whose definition
    is not counted yet: neither in this process nor in the kept counts (:mod:`.token_cache`)."""


class _Encoding(Protocol):
    def count(self, text: str) -> int: ...


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def _count(encoding: _Encoding, text: str) -> int:
    """``encoding``'s count of ``text``; a lone surrogate (a server's broken escape) is counted
    as the ``\\uXXXX`` escape a request's JSON carries it as, since it has no UTF-8 form."""
    try:
        return encoding.count(text)
    except (TypeError, UnicodeError):
        return encoding.count(
            _LONE_SURROGATE.sub(lambda found: f"\\u{ord(found.group()):04x}", text)
        )


_MEMO_LIMIT = 200_000
"""Entries kept per cache before it starts over (bounds memory for a long-running app)."""


class TokenCounter:
    """Counts tool definitions, each distinct one once; safe to use from several threads.

    The encodings load on the first count not known yet (about 1 s): call :meth:`warm` from a
    worker thread first where a caller must not wait. ``cache``: the counts kept across
    processes, read before an encoding is loaded (:meth:`save` writes the new ones); ``None``:
    none kept.
    """

    __slots__ = ("_by_text", "_by_tool", "_cache", "_encodings", "_lock")

    def __init__(self, cache: TokenCache | None = None) -> None:
        self._cache = cache
        self._lock = threading.Lock()
        self._encodings: dict[str, _Encoding] = {}
        # Per family: definition text -> count (survives a reload that rebuilt the objects).
        self._by_text: dict[FamilyName, dict[str, int]] = {name: {} for name in FAMILIES}
        # Per family: (wire name, id of the description, id of the schema) -> (the description
        # and the schema, kept alive so the ids stay theirs, count). A re-projected server's new
        # WireTool objects carry the same description and schema objects as before.
        self._by_tool: dict[FamilyName, dict[tuple[str, int, int], tuple[str, object, int]]] = {
            name: {} for name in FAMILIES
        }

    @property
    def ready(self) -> bool:
        """Whether every family's encoding is loaded (counting no longer waits for a load)."""
        return all(family.encoding in self._encodings for family in FAMILIES.values())

    def warm(self) -> None:
        """Load every family's encoding now (blocking; meant for a worker thread)."""
        for family in FAMILIES.values():
            self._encoding(family.encoding)

    def _encoding(self, name: str) -> _Encoding:
        found = self._encodings.get(name)
        if found is None:
            with self._lock:
                found = self._encodings.get(name)
                if found is None:
                    import quicktok  # about 1.5 s with its vocabulary: only when counting

                    found = self._encodings[name] = quicktok.get_encoding(name)
        return found

    def count(
        self,
        name: str,
        description: str,
        input_schema: Mapping[str, Any],
        family: FamilyName = DEFAULT_FAMILY,
        *,
        may_load: bool = True,
    ) -> int:
        """Tokens of one tool definition in ``family`` (counted once per distinct text).

        ``may_load=False``: a definition counted neither in this process nor in the kept counts
        raises :class:`CountNotKept` while the encoding is not loaded, instead of loading it.
        """
        spec = FAMILIES[family]
        text = tool_definition(spec, name, description, input_schema)
        cache = self._by_text[family]
        found = cache.get(text)
        if found is None:
            found = self._counted(spec, text, may_load)
            if len(cache) >= _MEMO_LIMIT:
                cache.clear()
            cache[text] = found
        return found

    def _counted(self, spec: ModelFamily, text: str, may_load: bool) -> int:
        """``text``'s count from the kept counts, else from the encoding (then kept); without
        ``may_load`` an encoding not loaded yet is not loaded (:class:`CountNotKept`)."""
        kept = self._cache
        key = None if kept is None else definition_digest(spec.name, spec.encoding, text)
        found = None if kept is None or key is None else kept.get(key)
        if found is not None:
            return found
        if not may_load and spec.encoding not in self._encodings:
            raise CountNotKept(f"{spec.name}: a definition not counted yet")
        found = _count(self._encoding(spec.encoding), text)
        if kept is not None and key is not None:
            kept.put(key, found)
        return found

    def save(self) -> bool:
        """Write the counts made since the last save to the kept counts (blocking, a few
        milliseconds; nothing when no count was new); whether they were written."""
        return self._cache is not None and self._cache.save()

    def count_tool(
        self, tool: WireTool, family: FamilyName = DEFAULT_FAMILY, *, may_load: bool = True
    ) -> int:
        """Tokens of a wire tool's definition; a tool whose description and schema are the
        very objects counted before (a toggle's re-projection) is looked up, not serialised.
        ``may_load``: as for :meth:`count`."""
        memo = self._by_tool[family]
        description, schema = tool.description, tool.input_schema
        key = (tool.name, id(description), id(schema))
        entry = memo.get(key)
        if entry is not None and entry[0] is description and entry[1] is schema:
            return entry[2]
        found = self.count(tool.name, description, schema, family, may_load=may_load)
        if len(memo) >= _MEMO_LIMIT:
            memo.clear()
        memo[key] = (description, schema, found)
        return found

    def total(
        self,
        tools: Iterable[WireTool],
        family: FamilyName = DEFAULT_FAMILY,
        *,
        may_load: bool = True,
    ) -> int:
        """Tokens of all of ``tools`` together (the request's overhead not included);
        ``may_load``: as for :meth:`count`."""
        count = self.count_tool
        return sum(count(tool, family, may_load=may_load) for tool in tools)


TOKEN_COUNTER = TokenCounter(TokenCache())
"""The process's counter: one cache for the CLI, the picker and the gateway, its counts kept
across processes in the user's cache folder (:func:`.token_cache.default_cache_path`)."""
