"""papercat.memo: a function's results remembered by argument."""

from papercat.memo import Memo


def test_each_key_is_computed_once_and_then_looked_up() -> None:
    calls: list[str] = []
    memo = Memo(lambda key: calls.append(key) or key.upper())
    assert list(map(memo.__getitem__, ["a", "b", "a", "a", "b"])) == ["A", "B", "A", "A", "B"]
    assert calls == ["a", "b"]


def test_a_memo_with_a_limit_starts_afresh_once_it_holds_that_many() -> None:
    calls: list[int] = []
    memo = Memo(lambda key: calls.append(key) or key * 2, limit=2)
    assert [memo[1], memo[2], memo[1], memo[3], memo[1]] == [2, 4, 2, 6, 2]
    assert calls == [1, 2, 3, 1]  # 3 found it full: it was cleared, so 1 is worked out again
    assert len(memo) <= 2
