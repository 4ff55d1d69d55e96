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
