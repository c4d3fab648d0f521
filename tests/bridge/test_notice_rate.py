"""The noisy mark by notice rate: a sustained rate is noise, a burst is not."""

from __future__ import annotations

from agentty_tui.bridge.notice_rate import NOISY_RATE, NOISY_SECONDS, NoticeRate


def _feed(rate: NoticeRate, start: float, seconds: float, per_second: int) -> bool:
    """Notices at ``per_second`` from ``start`` for ``seconds``; the last answer."""
    noisy = False
    for index in range(int(seconds * per_second)):
        noisy = rate.notice(start + index / per_second)
    return noisy


def test_a_burst_of_a_thousand_notices_is_not_noise() -> None:
    rate = NoticeRate()
    assert not any(rate.notice(index / 10_000) for index in range(1000))


def test_a_rate_kept_up_for_a_few_seconds_is_noise_and_a_quiet_spell_ends_it() -> None:
    rate = NoticeRate()
    assert not _feed(rate, 0.0, NOISY_SECONDS - 1, NOISY_RATE * 2)
    assert _feed(rate, NOISY_SECONDS - 1, 1, NOISY_RATE * 2)
    # After a quiet second, the count starts again.
    assert not rate.notice(NOISY_SECONDS + 3.0)
    assert not rate.noisy


def test_a_slow_steady_trickle_is_not_noise() -> None:
    assert not _feed(NoticeRate(), 0.0, 30, NOISY_RATE - 1)
