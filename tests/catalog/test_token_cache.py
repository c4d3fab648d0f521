"""The token counts kept across processes: hits, misses, a corrupt or foreign file, the bound,
writers in several processes, and a counter that answers from them without its encoding."""

from __future__ import annotations

import os
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from agentty_tui.catalog.token_cache import (
    MAGIC,
    TokenCache,
    default_cache_path,
    definition_digest,
)
from agentty_tui.catalog.tokens import FAMILIES, TokenCounter, tool_definition

SCHEMA = {"type": "object", "properties": {"text": {"type": "string"}}}


def key(number: int) -> bytes:
    return definition_digest("claude", "o200k_base", f"definition {number}")


def test_a_count_saved_is_found_by_another_cache_on_the_same_file(tmp_path: Path) -> None:
    path = tmp_path / "counts.bin"
    first = TokenCache(path)
    assert first.get(key(1)) is None  # a miss on a file that is not there
    first.put(key(1), 41)
    first.put(key(2), 42)
    assert first.get(key(1)) == 41  # this process's own, before any save
    assert first.save() is True
    assert first.save() is False  # nothing new: nothing written
    second = TokenCache(path)
    assert (second.get(key(1)), second.get(key(2)), second.get(key(3))) == (41, 42, None)


def test_the_default_file_follows_xdg_cache_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "one"))
    cache = TokenCache()
    cache.put(key(1), 7)
    cache.save()
    assert default_cache_path() == tmp_path / "one" / "agentty" / "token-counts.bin"
    assert default_cache_path().is_file()
    assert (tmp_path / "one" / "agentty").stat().st_mode & 0o077 == 0  # a private folder
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "two"))
    assert cache.get(key(1)) is None  # the other folder's file is read, not the first one's


def test_the_digest_covers_family_encoding_and_every_character() -> None:
    base = definition_digest("claude", "o200k_base", "text")
    assert len(base) == 16
    assert definition_digest("openai", "o200k_base", "text") != base
    assert definition_digest("claude", "cl100k_base", "text") != base
    assert definition_digest("claude", "o200k_base", "text ") != base
    # A lone surrogate (a server's broken escape) has a digest of its own, and no error.
    assert definition_digest("claude", "o200k_base", "a\ud800") != definition_digest(
        "claude", "o200k_base", "a\ud801"
    )


@pytest.mark.parametrize(
    "content",
    [
        b"",
        b"not a cache file at all",
        b'{"counts": {}}',  # another program's file
        MAGIC,  # torn: shorter than a header
        struct.pack("<8sII", MAGIC, 3, 0) + b"\x00" * 20,  # fewer records than it says
        struct.pack("<8sII", b"agtkc\x00\x09\n", 0, 0),  # another format version
    ],
    ids=["empty", "text", "foreign", "torn", "short", "other-version"],
)
def test_a_corrupt_or_foreign_file_is_ignored_and_replaced(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "counts.bin"
    path.write_bytes(content)
    cache = TokenCache(path)
    assert cache.get(key(1)) is None
    cache.put(key(1), 5)
    assert cache.save() is True
    assert TokenCache(path).get(key(1)) == 5


def test_a_record_changed_on_disk_fails_the_checksum(tmp_path: Path) -> None:
    path = tmp_path / "counts.bin"
    cache = TokenCache(path)
    cache.put(key(1), 5)
    cache.put(key(2), 6)
    cache.save()
    data = bytearray(path.read_bytes())
    data[-1] ^= 0x01  # a count's top byte: 6 would read as 16,777,222
    path.write_bytes(bytes(data))
    reread = TokenCache(path)
    assert (reread.get(key(1)), reread.get(key(2))) == (None, None)


def test_a_file_larger_than_the_bound_is_not_read(tmp_path: Path) -> None:
    path = tmp_path / "counts.bin"
    big = TokenCache(path, max_entries=10)
    for number in range(10):
        big.put(key(number), number)
    big.save()
    assert TokenCache(path, max_entries=9).get(key(0)) is None
    assert TokenCache(path, max_entries=10).get(key(0)) == 0


def test_the_file_keeps_at_most_the_bound_the_newest_and_the_used(tmp_path: Path) -> None:
    path = tmp_path / "counts.bin"
    first = TokenCache(path, max_entries=10)
    for number in range(10):
        first.put(key(number), number)
    first.save()
    assert path.stat().st_size == 16 + 10 * 20
    second = TokenCache(path, max_entries=10)
    assert second.get(key(0)) == 0  # used again: it moves to the newest end on the next save
    for number in range(10, 14):
        second.put(key(number), number)
    second.save()
    assert path.stat().st_size == 16 + 10 * 20
    kept = TokenCache(path, max_entries=10)
    # The four oldest not used (1 to 4) made room for the four new ones.
    assert [number for number in range(14) if kept.get(key(number)) is None] == [1, 2, 3, 4]


def test_a_cache_that_cannot_be_written_is_left_without_an_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    cache = TokenCache(blocker / "agentty" / "counts.bin")  # its folder cannot be made
    cache.put(key(1), 1)
    assert cache.save() is False
    assert cache.get(key(2)) is None


_WRITER = """
import sys
from pathlib import Path
from agentty_tui.catalog.token_cache import TokenCache, definition_digest
cache = TokenCache(Path(sys.argv[1]))
first = int(sys.argv[2])
for round in range(5):
    for number in range(first + round * 40, first + (round + 1) * 40):
        cache.put(definition_digest("claude", "o200k_base", f"definition {number}"), number)
    assert cache.save()
"""


def test_writers_in_several_processes_lose_none_of_each_others_counts(tmp_path: Path) -> None:
    path = tmp_path / "counts.bin"
    writers = [
        subprocess.Popen(
            [sys.executable, "-c", _WRITER, str(path), str(start)],
            env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
        )
        for start in (0, 1000, 2000, 3000)
    ]
    assert [writer.wait(timeout=60) for writer in writers] == [0, 0, 0, 0]
    kept = TokenCache(path)
    for start in (0, 1000, 2000, 3000):
        assert all(kept.get(key(number)) == number for number in range(start, start + 200))
    assert not list(tmp_path.glob(".token-counts-*"))  # no temporary file left behind


def test_a_counter_answers_from_kept_counts_without_loading_its_encoding(tmp_path: Path) -> None:
    path = tmp_path / "counts.bin"
    tools = [(f"mcp__s__tool_{n}", f"Does thing {n}.", SCHEMA) for n in range(5)]
    cold = TokenCounter(TokenCache(path))
    counted = {
        family: [cold.count(name, text, schema, family) for name, text, schema in tools]
        for family in FAMILIES
    }
    assert cold.ready  # a count not kept loaded the encoding
    assert cold.save() is True
    warm = TokenCounter(TokenCache(path))
    again = {
        family: [warm.count(name, text, schema, family) for name, text, schema in tools]
        for family in FAMILIES
    }
    assert again == counted
    assert not warm.ready  # every count was kept: the encoding was never loaded
    # And they are the encoding's own counts, as a counter that keeps none counts them.
    plain = TokenCounter()
    assert counted == {
        family: [plain.count(name, text, schema, family) for name, text, schema in tools]
        for family in FAMILIES
    }
    # The key is the exact text counted: another description is a miss.
    warm.count("mcp__s__tool_0", "Does another thing.", SCHEMA)
    assert warm.ready
    assert tool_definition(FAMILIES["claude"], "n", "d", SCHEMA).startswith('{"name":"n"')
