"""The loopback redirect listener on its own: one valid redirect, refusals, denial, timeout."""

from __future__ import annotations

import anyio
import httpx2
import pytest

from agentty_tui.bridge.auth import LoginError, LoopbackCallback

pytestmark = pytest.mark.anyio


async def _get(url: str) -> httpx2.Response:
    async with httpx2.AsyncClient() as client:
        return await client.get(url)


async def test_wrong_state_is_refused_then_the_right_one_is_taken() -> None:
    async with LoopbackCallback() as callback:
        callback.expected_state = "right"
        base = callback.redirect_uri
        assert base.startswith("http://127.0.0.1:") and base.endswith("/callback")
        got: list[object] = []

        async def waiter() -> None:
            got.append(await callback.wait(10))

        async with anyio.create_task_group() as group:
            group.start_soon(waiter)
            forged = await _get(f"{base}?code=c1&state=wrong")
            assert forged.status_code == 400
            elsewhere = await _get(base.replace("/callback", "/other") + "?code=c&state=right")
            assert elsewhere.status_code == 404
            assert not got  # still waiting
            good = await _get(f"{base}?code=c2&state=right&iss=https%3A%2F%2Fas")
            assert good.status_code == 200
            assert "return to the terminal" in good.text
        (result,) = got
        assert result.code == "c2" and result.iss == "https://as"  # type: ignore[attr-defined]
        assert callback.refused == 2


async def test_denied_login_says_why() -> None:
    async with LoopbackCallback() as callback:
        callback.expected_state = "s"
        async with anyio.create_task_group() as group:

            async def deny() -> None:
                await _get(f"{callback.redirect_uri}?error=access_denied&state=s")

            group.start_soon(deny)
            with pytest.raises(LoginError, match="refused the login \\(access_denied\\)"):
                await callback.wait(10)


async def test_pasted_redirect_is_judged_like_the_browser_one() -> None:
    async with LoopbackCallback() as callback:
        callback.expected_state = "s"
        assert callback.offer(f"{callback.redirect_uri}?code=c&state=other") is not None
        assert callback.offer(f"{callback.redirect_uri}?code=c&state=s") is None
        result = await callback.wait(10)
        assert result.code == "c"


async def test_no_redirect_times_out_with_a_message() -> None:
    async with LoopbackCallback() as callback:
        callback.expected_state = "s"
        with anyio.fail_after(10), pytest.raises(LoginError, match=r"within 0\.2 s"):
            await callback.wait(0.2)
