"""An id the run store does not hold raises UnknownRunError: a toolwire error (RunStoreError,
reason "unknown") naming the id and the file, and still a KeyError, as before."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from toolwire.errors import ToolwireError
from toolwire.store import RunStore, RunStoreError, UnknownRunError


@pytest.mark.parametrize("call", ["load", "load_state", "resume"])
def test_an_unknown_run_id_is_a_typed_error_naming_it(tmp_path: Path, call: str) -> None:
    path = tmp_path / "runs.sqlite"
    store = RunStore(path)
    with pytest.raises(UnknownRunError) as info:
        if call == "resume":
            asyncio.run(store.resume("nope", model="test"))
        else:
            getattr(store, call)("nope")
    exc = info.value
    assert isinstance(exc, RunStoreError) and isinstance(exc, ToolwireError) and isinstance(exc, KeyError)
    assert exc.reason == "unknown" and exc.run_id == "nope" and exc.path == str(path)
    assert str(exc).startswith("no run 'nope' in the run store") and str(path) in str(exc)
    assert not str(exc).startswith('"')  # not quoted as a bare KeyError's text is
