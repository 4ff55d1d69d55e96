"""Misuse of a run store gets a clear typed error: resume() given its own run_id, a labels column
changed by hand to text that is not JSON."""

from __future__ import annotations

import asyncio
import sqlite3

import pytest

import toolwire
from toolwire.errors import ConfigurationError
from toolwire.store import RunStore, RunStoreError


def test_resume_with_run_id_or_resume_is_a_configuration_error(tmp_path):
    store = RunStore(tmp_path / "runs.db")
    result = asyncio.run(store.run("test", "hi", run_id="r1"))
    assert result.run_id == "r1"
    for extra in ({"run_id": "r2"}, {"resume": None}):
        with pytest.raises(ConfigurationError, match="continues under its own id"):
            asyncio.run(store.resume("r1", "test", **extra))


def test_labels_changed_by_hand_to_bad_json_is_a_run_store_error(tmp_path):
    path = tmp_path / "runs.db"
    store = RunStore(path)
    asyncio.run(store.run("test", "hi", run_id="r1"))
    store.close()
    con = sqlite3.connect(path)
    con.execute("UPDATE runs SET labels='{not json' WHERE run_id='r1'")
    con.commit()
    con.close()
    store = RunStore(path)
    with pytest.raises(RunStoreError, match="labels of run 'r1'") as err:
        store.runs()
    assert err.value.reason == "damaged" and err.value.path == str(path)
    assert toolwire  # the package imported as users import it


def test_resume_still_takes_run_id_and_model_by_keyword(tmp_path):
    """resume(run_id, model) was called with keywords before run_id=/resume= became errors
    (store.resume("r1", model=m), store.resume(run_id="r1", model=m)): those calls still work."""
    store = RunStore(tmp_path / "runs.db")
    asyncio.run(store.run("test", "hi", run_id="r1"))
    assert asyncio.run(store.resume("r1", model="test")).run_id == "r1"
    assert asyncio.run(store.resume(run_id="r1", model="test")).run_id == "r1"
    with pytest.raises(ConfigurationError, match="continues under its own id"):
        asyncio.run(store.resume("r1", model="test", run_id="r2"))
    with pytest.raises(TypeError, match="model"):
        asyncio.run(store.resume("r1"))


def test_a_saved_state_under_another_run_id_than_its_row_is_refused_as_damaged(tmp_path):
    # the row 'r1' holding the state of a run 'other' (changed outside toolwire): resuming it
    # used to continue the run as 'other', writing a second row and leaving 'r1' as it was,
    # so the next resume of 'r1' did the same work again
    from toolwire.testing import ScriptedModel

    path = tmp_path / "runs.sqlite"
    store = RunStore(path)
    asyncio.run(store.run(ScriptedModel(responses=["hi"]), "go", run_id="r1"))
    store.close()
    conn = sqlite3.connect(path)
    state = conn.execute("SELECT state FROM runs WHERE run_id='r1'").fetchone()[0]
    conn.execute("UPDATE runs SET state=? WHERE run_id='r1'", (state.replace('"run_id": "r1"', '"run_id": "other"'),))
    conn.commit()
    conn.close()
    store = RunStore(path)
    with pytest.raises(RunStoreError) as info:
        store.load_state("r1")
    assert info.value.reason == "damaged"
    assert "the saved run 'r1'" in str(info.value) and "'other'" in str(info.value)
    with pytest.raises(RunStoreError):
        asyncio.run(store.resume("r1", ScriptedModel(responses=["again"])))
    assert [r.run_id for r in store.runs()] == ["r1"]
    assert isinstance(toolwire.RunState.from_json(store.load("r1")), toolwire.RunState)
