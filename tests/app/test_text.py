"""User text in the UI: literal Markdown (ui.common.text.literal) and a query filter that no pattern can stall."""

from __future__ import annotations

import itertools
import random

import pytest

from ui.common.text import WORD_JOINER, filter_match, literal, matches_filter, shown


@pytest.mark.parametrize("typed", [
    "[Session expired, sign in](https://evil.example/login)",
    "![x](https://evil.example/pixel.png)",
    "https://x.y", "www.x.y", "someone@example.org", "<b>bold</b>", "**bold**", "_it_", ":red[alarm]",
    ":material/home:", ":smile:", "$x^2$", "$$\\int$$", "`code`", "# heading", "> quote", "1. item", "- item",
    "a\\b", "~~struck~~", "| a | b |",
])
def test_every_ascii_punctuation_character_is_escaped_and_the_text_reads_back(typed):
    escaped = literal(typed).replace(WORD_JOINER, "")
    unescaped = [ch for i, ch in enumerate(escaped) if not ch.isalnum() and not ch.isspace()
                 and (i == 0 or escaped[i - 1] != "\\") and ch != "\\"]
    assert unescaped == []
    assert shown(literal(typed)) == typed


@pytest.mark.parametrize(("typed", "broken_up"), [
    # Rewrites that run on parsed text, after escapes are gone: a word joiner splits each pattern.
    ("https://x.y", "https:" + WORD_JOINER), ("WWW.x.y", "WWW" + WORD_JOINER), ("a@b.c", "@" + WORD_JOINER),
    (":streamlit:", ":" + WORD_JOINER + "streamlit"), ("a -> b", "-" + WORD_JOINER), ("x <= y", "<" + WORD_JOINER),
])
def test_autolinks_shortcodes_and_arrows_are_broken_up_by_an_invisible_joiner(typed, broken_up):
    assert broken_up in literal(typed).replace("\\", "")


@pytest.mark.parametrize("typed", ["one\ntwo", "one\r\ntwo", "one\rtwo", "one\u2028two", "one\x85two", "one\ftwo"])
def test_line_breaks_fold_to_a_space_so_user_text_never_starts_a_block(typed):
    assert "\n" not in literal(typed) and "\r" not in literal(typed)
    assert literal(typed).startswith("one ") and literal(typed).endswith("two")


@pytest.mark.parametrize(("qid", "pattern", "matches"), [
    ("301", "30", True), ("301", "01", True), ("301", "4", False), ("MSMARCO-dev", "dev", True),
    ("301", "30?", True), ("3010", "30?", False), ("train-17", "*-17", True), ("train-17", "train*", True),
    ("train-17", "t*n-?7", True), ("train-17", "*x*", False), ("ab", "a**b", True), ("", "*", True),
    ("Q1", "q1", True),  # case is ignored
    ("30[12]", "30[12]", True), ("301", "30[12]", False),  # brackets are plain characters
    ("a" * 30 + "!", "^(a+)+$", False),
])
def test_the_filter_is_a_substring_or_a_wildcard_pattern(qid, pattern, matches):
    assert matches_filter(qid, pattern) is matches


def wildcard_reference(text: str, pattern: str) -> bool:
    """The whole text against the pattern by dynamic programming over (text prefix, pattern prefix) pairs."""
    text, pattern = text.casefold(), pattern.casefold()
    if "*" not in pattern and "?" not in pattern:
        return pattern in text
    fits = [True] + [False] * len(text)  # fits[i]: the pattern so far matches text[:i]
    for want in pattern:
        if want == "*":
            fits = list(itertools.accumulate(fits, lambda before, here: before or here))
        else:
            fits = [False] + [fits[i] and want in ("?", text[i]) for i in range(len(text))]
    return fits[-1]


def test_the_wildcard_match_agrees_with_dynamic_programming_on_every_short_case():
    rng = random.Random(20)
    for _ in range(5_000):
        text = "".join(rng.choice("abB") for _ in range(rng.randint(0, 9)))
        pattern = "".join(rng.choice("ab**??") for _ in range(rng.randint(0, 7)))
        assert matches_filter(text, pattern) is wildcard_reference(text, pattern), (text, pattern)


@pytest.mark.parametrize("pattern, expected", [
    ("*" + "?" * 198 + "b", False), ("*" + "?" * 198 + "b*", False), ("*a" * 99 + "*b", False),
    ("*" + "a?" * 99 + "b*", False), ("*" + "a?" * 99 + "*", True), ("?" * 199 + "*", True),
    ("*" + "a" * 199, False), ("*" + "a" * 150 + "*c", True),
])
def test_the_work_of_a_wildcard_match_is_linear_in_the_text_and_the_pattern(pattern, expected):
    # A backtracking matcher took up to len(text) x len(pattern) steps: 300 such ids held a session for 58 s.
    qid = "a" * 9_999 + "c"
    matched, steps = filter_match(qid, pattern)
    assert matched is expected
    assert steps <= 2 * (len(qid) + len(pattern))
