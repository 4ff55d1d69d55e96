"""The V4A applier of the Responses apply_patch tool, checked against an independent diff: the
standard library's ``difflib.unified_diff`` between two texts, rewritten as V4A (bare ``@@`` hunk
headers, the same ``' '``/``'-'``/``'+'`` lines), must turn the first text into the second."""

from __future__ import annotations

import difflib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from toolwire_openai.v4a import PatchError, apply_create_diff, apply_update_diff


def v4a_from_difflib(old: str, new: str, context: int = 3) -> str:
    out = []
    for line in difflib.unified_diff(old.splitlines(), new.splitlines(), lineterm="", n=context):
        if line.startswith(("---", "+++")):
            continue
        out.append("@@" if line.startswith("@@") else line)
    return "\n".join(out) + "\n"


WORDS = ["a", "b", "c", "def f():", "    return 1", "", "x = 2", "# note", "  indented", "last"]
#: the old text's lines are distinct, so each hunk's context has one place (a repeated block is
#: ambiguous for any search by text; the first copy after the previous hunk is V4A's rule)
OLD = st.lists(st.sampled_from(WORDS + [f"line {i}" for i in range(30)]), max_size=25, unique=True)
NEW = st.lists(st.sampled_from(WORDS + [f"line {i}" for i in range(30)]), max_size=25)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(old=OLD, new=NEW, context=st.integers(min_value=1, max_value=3))
def test_a_difflib_diff_rewritten_as_v4a_applies_exactly(old, new, context) -> None:
    before = "\n".join(old) + "\n" if old else ""
    after = "\n".join(new) + "\n" if new else ""
    diff = v4a_from_difflib(before, after, context)
    if before == after:
        with pytest.raises(PatchError):
            apply_update_diff(before, diff)
        return
    assert apply_update_diff(before, diff) == after


#: an old text whose lines may end in white space (distinct without it), and a new text made of
#: the old lines (as they are) and other lines
@st.composite
def padded_texts(draw: st.DrawFn) -> tuple[list[str], list[str]]:
    bases = draw(st.lists(st.sampled_from(WORDS + [f"line {i}" for i in range(30)]), max_size=25, unique=True))
    old = [b + draw(st.sampled_from(["", " ", "\t", "   "])) for b in bases]
    pool = old + ["added", "  also added ", "x = 3"]
    new = draw(st.lists(st.sampled_from(pool), max_size=25)) if pool else []
    return old, new


@settings(max_examples=300, deadline=None, derandomize=True)
@given(texts=padded_texts(), context=st.integers(min_value=1, max_value=3))
def test_a_diff_whose_context_lost_trailing_white_space_keeps_the_files_own_lines(texts, context) -> None:
    """Models often drop trailing white space in a diff's ' ' and '-' lines; the match tolerates
    it, and the file keeps its own text for the context lines (they used to be replaced by the
    diff's stripped copies): only the '+' lines are the diff's."""
    old, new = texts
    before = "".join(line + "\n" for line in old)
    after = "".join(line + "\n" for line in new)
    if before == after:
        return
    diff = v4a_from_difflib(before, after, context)
    stripped = "".join((line.rstrip() if line[:1] in (" ", "-") else line) + "\n" for line in diff.splitlines())
    assert apply_update_diff(before, stripped) == after


def test_a_white_space_tolerant_match_changes_only_the_lines_the_diff_changes() -> None:
    text = "def f():  \n\tif x:\t\n        return 1   \n    return 0\r\n".replace("\r\n", "\n")
    # trailing white space dropped, and a context line re-indented (the all-white-space tier)
    diff = "@@\n def f():\n    if x:\n-        return 1\n+        return 2\n     return 0\n"
    assert apply_update_diff(text, diff) == "def f():  \n\tif x:\t\n        return 2\n    return 0\n"
    crlf = text.replace("\n", "\r\n")
    assert apply_update_diff(crlf, diff) == "def f():  \r\n\tif x:\t\r\n        return 2\r\n    return 0\r\n"
    # the shape models send (https://platform.openai.com/docs/guides/tools-apply-patch): an @@ line to
    # find first, the context copied without the file's trailing space
    source = "class Cart:  \n    def total(self, items):\n        # sum   \n        return sum(items)\n"
    patch = (
        "*** Begin Patch\n*** Update File: cart.py\n@@ class Cart:\n@@     def total(self, items):\n"
        "         # sum\n-        return sum(items)\n+        return sum(i.price for i in items)\n*** End Patch\n"
    )
    assert apply_update_diff(source, patch) == source.replace("sum(items)", "sum(i.price for i in items)")
    # an added line is the diff's own text, white space and all
    assert apply_update_diff("a \nb\n", " a\n+c  \n b\n") == "a \nc  \nb\n"


def test_anchors_crlf_end_of_file_and_create() -> None:
    text = "class A:\r\n    def f(self):\r\n        return 1\r\nclass B:\r\n    def f(self):\r\n        return 1\r\n"
    diff = "@@ class B:\n@@     def f(self):\n-        return 1\n+        return 2\n"
    assert apply_update_diff(text, diff) == text.replace("return 1\r\n", "return 2\r\n", 2).replace(
        "return 2", "return 1", 1
    )
    assert apply_update_diff("a\nb\nb\n", " b\n-b\n+c\n*** End of File\n") == "a\nb\nc\n"
    assert apply_create_diff("+one\n+two\n") == "one\ntwo\n"
    with pytest.raises(PatchError, match="does not start with '\\+'"):
        apply_create_diff("one\n")
    with pytest.raises(PatchError, match="starts at the line 'class C:'"):
        apply_update_diff(text, "@@ class C:\n-x\n+y\n")
