"""``call``'s progress on a terminal: one updating line, the server's text made safe, erased
before the result; under a real pty the progress shows and Ctrl-C cancels the call (the server
hears it) and ends with 130; without a terminal nothing is drawn."""

from __future__ import annotations

import fcntl
import io
import os
import pty
import select
import subprocess
import sys
import termios
import time
from pathlib import Path

import anyio
import pytest

from agentty_tui.call_progress import CallProgress, elapsed_text, progress_line
from agentty_tui.cli.tty_progress import TerminalProgress
from tests.conftest import WriteConfig
from tests.helpers import run_cli, stdio_entry
from tests.servers import asking_argv

ERASE = "\r\x1b[K"


def test_a_report_is_a_bar_a_count_the_message_and_the_time() -> None:
    line = progress_line(CallProgress(2, 5, "step 2"), 3.4, width=10)
    assert line == "[████░░░░░░] 2/5 · step 2 · 3 s"
    assert progress_line(CallProgress(7, None, None), 61) == "7 done · 1 min 01 s"
    assert progress_line(None, 0.2) == "calling… · 0 s"
    assert elapsed_text(125) == "2 min 05 s"


def test_odd_numbers_from_a_server_do_not_break_the_line() -> None:
    assert progress_line(CallProgress(9, 3, None), 0, width=4) == "[████] 9/3 · 0 s"
    assert progress_line(CallProgress(1, 0, None), 0) == "1 done · 0 s"
    assert progress_line(CallProgress(float("nan"), 2, None), 0) == "? done · 0 s"
    assert progress_line(CallProgress(1.5, 4, None), 0, width=8) == "[███░░░░░] 1.5/4 · 0 s"


def test_the_servers_message_is_one_safe_line_and_bounded() -> None:
    line = progress_line(CallProgress(1, 2, "\x1b[2Jred\nnext" + "x" * 500), 0)
    assert "\x1b" not in line and "\n" not in line
    assert "⏎next" in line and len(line) < 220


async def _draw(
    progress: TerminalProgress, *reports: tuple[float, float | None, str | None]
) -> None:
    for report in reports:
        await progress(*report)


def test_the_line_is_drawn_over_itself_cut_to_the_width_and_erased() -> None:
    out = io.StringIO()
    clock = iter([0.0, 1.0, 2.0])
    progress = TerminalProgress("s / t", out, clock=lambda: next(clock), columns=lambda: 50)
    anyio.run(_draw, progress, (1, 4, "one"), (2, 4, "two" * 30))
    progress.clear()
    progress.clear()  # nothing drawn any more: nothing written
    first, second, last = out.getvalue().split(ERASE)[1:]
    assert first == "s / t: [█████░░░░░░░░░░░░░░░] 1/4 · one · 1 s"
    assert len(second) == 49 and second.endswith("…")
    assert last == ""


def _read_until(master: int, wanted: str, seen: list[str], deadline: float) -> None:
    while wanted not in "".join(seen):
        assert time.monotonic() < deadline, f"no {wanted!r} in {''.join(seen)!r}"
        ready, _, _ = select.select([master], [], [], 0.2)
        if ready:
            try:
                seen.append(os.read(master, 4096).decode(errors="replace"))
            except OSError:  # the child closed the terminal
                break


def _own_terminal() -> None:
    """In the child: the pty on its standard input becomes its controlling terminal, so ^C
    typed on it is a SIGINT to the child (as in a shell)."""
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


@pytest.mark.parametrize("era", ["2026", "2025"])
def test_ctrl_c_on_a_terminal_cancels_the_call_and_ends_with_130(
    write_config: WriteConfig, tmp_path: Path, era: str
) -> None:
    """The real command under a pty: the progress line shows, ^C cancels, the server got
    ``notifications/cancelled`` (its own log of them says so: the server's tool is cancelled
    on shutdown too, so that alone proves nothing), and the status is the shell's 130."""
    extra = ("--legacy",) if era == "2025" else ()
    heard = tmp_path / "cancelled.log"
    path = write_config({"ask": stdio_entry(asking_argv(*extra, "--cancel-log", str(heard)))})
    marker = tmp_path / "marker"
    arguments = f'{{"marker": "{marker}"}}'
    master, slave = pty.openpty()
    argv = [sys.executable, "-m", "agentty_tui", "call", "ask", "crawl", arguments]
    child = subprocess.Popen(
        [*argv, "--config", str(path)],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        close_fds=True,
        start_new_session=True,
        preexec_fn=_own_terminal,
    )
    os.close(slave)
    seen: list[str] = []
    deadline = time.monotonic() + 60
    try:
        _read_until(master, "2/5 · crawling page 2", seen, deadline)
        assert "ask / crawl: [████████░░░░░░░░░░░░]" in "".join(seen)
        os.write(master, b"\x03")
        assert child.wait(timeout=30) == 130
    finally:
        if child.poll() is None:
            child.kill()
        os.close(master)
    assert len(heard.read_text().splitlines()) == 1


def test_without_a_terminal_no_progress_is_drawn(write_config: WriteConfig) -> None:
    path = write_config({"ask": stdio_entry(asking_argv())})
    result = run_cli("call", "ask", "count", '{"steps": 3}', "--config", str(path))
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "counted 3"
    assert result.stderr == ""


def test_the_drawn_line_is_drawn_again_while_the_call_runs() -> None:
    """Between two reports the time run counts on; nothing is drawn before a report or after
    the line was cleared (a question of the server's is on the terminal)."""
    out = io.StringIO()
    now = [0.0]
    progress = TerminalProgress("s / t", out, clock=lambda: now[0], columns=lambda: 80)

    async def main() -> None:
        ticks, ticked = anyio.create_memory_object_stream[None]()

        async def one_tick(_interval: float) -> None:
            await ticked.receive()

        async def tick() -> None:
            await ticks.send(None)  # the tick's sleep ends
            await anyio.wait_all_tasks_blocked()  # and its drawing is done

        async with anyio.create_task_group() as group:
            group.start_soon(progress.tick, 1.0, one_tick)
            await tick()
            assert out.getvalue() == ""  # no report yet
            await progress(1, 2, "half")
            now[0] = 7.0
            await tick()
            assert out.getvalue().endswith(ERASE + "s / t: [██████████░░░░░░░░░░] 1/2 · half · 7 s")
            progress.clear()
            cleared = out.getvalue()
            await tick()
            assert out.getvalue() == cleared
            group.cancel_scope.cancel()

    anyio.run(main)
