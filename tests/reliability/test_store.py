"""The SQLite run store on a real file: schema, round trip, scrubbing, versions, concurrency."""

from __future__ import annotations

import json
import sqlite3
import threading

import pytest

import toolwire
from toolwire.errors import ConfigurationError
from toolwire.store import SCHEMA_VERSION, RunStore
from toolwire.types import ToolCall


@toolwire.tool
def add(a: int, b: int) -> int:
    """Add two whole numbers. Use when asked for a sum."""
    return a + b


def finished_run():
    m = toolwire.model(
        "scripted",
        responses=[
            [ToolCall("c1", "add", {"a": 2, "b": 3}), ToolCall("c2", "add", {"a": 1, "b": "x"})],
            "the sum is 5",
        ],
    )
    return toolwire.run_sync(m, "add 2 and 3", tools=[add], run_id="run-1")


def test_schema_is_versioned_and_documented_tables_exist(tmp_path):
    path = tmp_path / "runs.sqlite"
    RunStore(path).close()
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 4
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert tables == {"meta", "runs", "turns", "tool_calls", "experiments", "leases"}
    assert dict(conn.execute("SELECT key, value FROM meta")) == {
        "schema_version": "4",
        "written_by": f"toolwire {toolwire.__version__}",
    }
    cols = [r[1] for r in conn.execute("PRAGMA table_info(tool_calls)")]
    assert cols == [
        "run_id",
        "call_id",
        "turn",
        "position",
        "name",
        "arguments",
        "is_error",
        "duration",
        "deduplicated",
        "pending",
        "result",
    ]


def test_a_run_round_trips_with_its_turns_and_tool_calls(tmp_path):
    result = finished_run()
    with RunStore(tmp_path / "runs.sqlite") as store:
        store.save(result, experiment="exp-a", labels={"arm": "baseline"})
        row = store.get("run-1")
        assert (row.model, row.status, row.stop_reason, row.turns, row.tool_calls, row.tool_errors) == (
            "scripted",
            "finished",
            "end_turn",
            2,
            2,
            1,
        )
        assert row.experiment == "exp-a" and row.labels == {"arm": "baseline"}
        calls = store.tool_calls("run-1")
        assert [
            (c["call_id"], c["turn"], c["position"], c["name"], c["arguments"], c["is_error"], c["result"])
            for c in calls
        ][0] == ("c1", 1, 0, "add", {"a": 2, "b": 3}, False, "5")
        assert calls[1]["is_error"] and calls[1]["result"].startswith("Invalid arguments for tool 'add'")
        loaded = store.load_state("run-1")  # the run state (a RunResult's JSON loads as one)
        assert (loaded.run_id, loaded.status) == ("run-1", "finished")
        assert loaded.conversation.to_dict() == result.conversation.to_dict()
        assert [t.to_dict() for t in loaded.turns] == [t.to_dict() for t in result.turns]
        store.save(result)  # a later save keeps the experiment and labels
        assert store.get("run-1").labels == {"arm": "baseline"}
        assert [r.run_id for r in store.runs(experiment="exp-a")] == ["run-1"]
        turns = store.execute(
            "SELECT number, stop_reason, input_tokens, text FROM turns WHERE run_id=? ORDER BY number", ("run-1",)
        )
        assert [tuple(t) for t in turns] == [
            (1, "tool_use", result.turns[0].usage.input_tokens, ""),
            (2, "end_turn", result.turns[1].usage.input_tokens, "the sum is 5"),
        ]


def test_nothing_written_holds_a_known_credential(tmp_path, monkeypatch):
    key = "sk-PLANTEDstoreKey000111"
    monkeypatch.setenv("SOME_API_KEY", key)

    @toolwire.tool
    def echo(text: str) -> str:
        """Echo. Use when told to."""
        return text

    m = toolwire.model("scripted", responses=[[ToolCall("c1", "echo", {"text": key})], f"said {key}"])
    result = toolwire.run_sync(m, "echo it", tools=[echo])
    path = tmp_path / "runs.sqlite"
    with RunStore(path) as store:
        store.save(result, labels={"note": key})
    raw = path.read_bytes() + b"".join(p.read_bytes() for p in tmp_path.glob("runs.sqlite-*"))
    assert key.encode() not in raw
    assert b"[REDACTED]" in raw


def test_a_newer_schema_or_a_foreign_file_is_refused(tmp_path):
    newer = tmp_path / "newer.sqlite"
    conn = sqlite3.connect(newer)
    conn.execute("PRAGMA user_version=7")
    conn.close()
    with pytest.raises(ConfigurationError, match="schema version 7, newer than this toolwire's 4"):
        RunStore(newer)
    foreign = tmp_path / "foreign.sqlite"
    conn = sqlite3.connect(foreign)
    conn.execute("CREATE TABLE people (name TEXT)")
    conn.close()
    with pytest.raises(ConfigurationError, match="not a toolwire run store"):
        RunStore(foreign)
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"not sqlite at all" * 100)
    with pytest.raises(ConfigurationError, match=r"is not an SQLite file \(file is not a database\)"):
        RunStore(junk)
    # adv: a folder given as the store is a configuration error naming it, not a raw sqlite3 error
    folder = tmp_path / "a-folder"
    folder.mkdir()
    with pytest.raises(ConfigurationError, match="a-folder' is a folder, not a run store file"):
        RunStore(folder)
    with pytest.raises(ConfigurationError, match="cannot be opened or written .*check that its folder exists"):
        RunStore(tmp_path / "missing" / "deeper" / "s.sqlite")


def test_concurrent_saves_from_threads_and_two_connections(tmp_path):
    result = finished_run()
    path = tmp_path / "runs.sqlite"
    a, b = RunStore(path), RunStore(path)

    results = [toolwire.RunResult.from_json(result.to_json()) for _ in range(4)]

    def work2(store, n):
        for i in range(20):
            results[n].run_id = f"r-{n}-{i}"
            store.save(results[n])

    threads = [threading.Thread(target=work2, args=(s, n)) for n, s in enumerate([a, b, a, b])]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert len(a.runs()) == 80 and len(b.tool_calls("r-3-19")) == 2
    a.close()
    b.close()
    with RunStore(path) as c:
        json.loads(c.load("r-0-0"))


def test_adv_a_store_locked_by_another_process_is_a_typed_error_naming_it(tmp_path):
    """A writer holding the file past the timeout: a RunStoreError (reason "locked") naming the file
    and what to do, never a bare sqlite3.OperationalError; what was saved before is kept."""
    from toolwire.store import RunStoreError

    path = tmp_path / "runs.sqlite"
    result = finished_run()
    with RunStore(path) as first:
        first.save(result)
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        with RunStore(path, timeout=0.2) as store:
            with pytest.raises(RunStoreError) as info:
                store.save(result)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    err = info.value
    assert isinstance(err, ConfigurationError) and (err.reason, err.path) == ("locked", str(path))
    assert str(err).startswith(f"the run store {str(path)!r} is locked by another process (waited 0.2 s; ")
    assert "Let it finish, or give another file." in str(err)
    # a process stopped inside a transaction keeps the lock: the message says how to free it
    assert str(err).endswith("holds the lock until it goes on: bring it back (`fg`) or end it (`kill PID`)")
    with RunStore(path) as store:
        assert [r.run_id for r in store.runs()] == [result.run_id]  # nothing lost


def test_adv_a_damaged_store_is_a_typed_error_saying_what_to_do(tmp_path):
    from toolwire.store import RunStoreError

    path = tmp_path / "runs.sqlite"
    with RunStore(path) as store:
        store.save(finished_run())
    data = path.read_bytes()
    damaged = tmp_path / "damaged.sqlite"
    damaged.write_bytes(data[: len(data) // 2])  # cut in half: the header is fine, pages are missing
    with pytest.raises(RunStoreError) as info:
        with RunStore(damaged) as store:
            store.runs()
    assert info.value.reason == "damaged"
    assert str(info.value) == (
        f"the run store {str(damaged)!r} is damaged (database disk image is malformed); restore it from a "
        "backup, or move it aside to start a new one (`sqlite3 FILE .recover` may save its rows)"
    )


def test_a_response_repeating_a_call_id_is_stored_whole(tmp_path):
    """The same call twice under one id in one response: the later is answered, never run;
    storing it broke the (run_id, call_id) key, and the whole run was lost."""
    import asyncio

    from toolwire.testing import ScriptedModel, call

    @toolwire.tool
    def echo(text: str) -> str:
        """Echo."""
        return text

    path = tmp_path / "runs.sqlite"
    model = ScriptedModel(
        responses=[[call("echo", {"text": "a"}, id="c0"), call("echo", {"text": "a"}, id="c0")], "done"]
    )
    result = asyncio.run(RunStore(path).run(model, "go", tools=[echo], run_id="r1"))
    assert result.text == "done"
    store = RunStore(path)
    assert store.get("r1").status == "finished"
    rows = [(r["call_id"], r["turn"], r["position"], bool(r["is_error"])) for r in store.tool_calls("r1")]
    assert rows == [("c0", 1, 0, False), ("c0#1.1", 1, 1, True)]
    # the state keeps the calls as the model sent them
    assert [r.call.id for r in store.load_state("r1").turns[0].tool_runs] == ["c0", "c0"]


@pytest.mark.parametrize("version, tables", [(-5, False), (1, False), (2, False)])
def test_a_file_with_a_store_version_but_not_its_tables_is_refused(tmp_path, version, tables):
    path = tmp_path / "odd.sqlite"
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version={version}")
    conn.execute("CREATE TABLE notes (x TEXT)")
    conn.commit()
    conn.close()
    with pytest.raises(ConfigurationError, match="not a toolwire run store"):
        RunStore(path)


def test_after_one_write_waited_the_whole_timeout_the_next_ones_wait_locked_retry(tmp_path):
    """Another connection holds the write lock (as a process suspended mid-write does): the first
    write waits the store's timeout, the next ones LOCKED_RETRY each, with a message saying so;
    once the lock is free, writes wait the whole timeout again."""
    import time

    from toolwire.store import RunStore, RunStoreError

    path = tmp_path / "s.sqlite"
    store = RunStore(path, timeout=3)
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    began = time.monotonic()
    with pytest.raises(RunStoreError) as first:
        store.save_experiment("e", {})
    assert 2.8 < time.monotonic() - began < 6 and first.value.reason == "locked"
    assert "(waited 3 s; database is locked)" in str(first.value)
    for _ in range(3):
        began = time.monotonic()
        with pytest.raises(RunStoreError) as later:
            store.save_experiment("e", {})
        assert time.monotonic() - began < 2.5  # LOCKED_RETRY (1 s), not the 3 s timeout
        assert later.value.reason == "locked"
        assert "(waited 1 s, after an earlier write of this process waited 3 s in vain; database is locked)" in str(
            later.value
        )
    holder.execute("ROLLBACK")
    assert store.save_experiment("e", {"v": 1})  # the lock is free: written
    holder.execute("BEGIN IMMEDIATE")
    began = time.monotonic()
    with pytest.raises(RunStoreError, match=r"\(waited 3 s; database is locked\)"):
        store.save_experiment("e", {})
    assert time.monotonic() - began > 2.8  # the whole timeout again
    holder.execute("ROLLBACK")
    holder.close()
    store.close()
    from toolwire.store import LOCKED_RETRY

    assert LOCKED_RETRY == 1.0


@pytest.mark.parametrize("kind", ["store", "journal"])
def test_a_new_file_another_process_is_setting_up_is_waited_for_not_refused_at_once(tmp_path, kind):
    """Two processes opening one new file at the same instant (two `toolwire experiment run` started
    together): while one of them holds its write lock on the file, still in its first journal mode
    (it is switching the file to WAL mode), the other's switch to WAL mode got "database is locked"
    at once — SQLite does not call the busy handler when a lock held must be raised — and that
    process exited 2 ("waited 30 s", having waited nothing) while the first went on alone. Now the
    switch is tried again until the timeout: the opening waits for the other and succeeds."""
    import time

    from toolwire.batch import BatchJournal

    path = tmp_path / "new.sqlite"
    holder = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    holder.execute("BEGIN IMMEDIATE")  # a write lock on a file not yet in WAL mode
    freed = threading.Timer(0.5, lambda: holder.execute("ROLLBACK"))
    freed.start()
    began = time.monotonic()
    try:
        opened = RunStore(path, timeout=5) if kind == "store" else BatchJournal(path, timeout=5)
    finally:
        freed.join()
    took = time.monotonic() - began
    with opened:
        assert opened._conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert 0.4 < took < 4, took  # waited for the other connection, not the whole timeout
    holder.close()


def test_a_run_is_stored_before_its_first_model_request_so_a_crash_there_can_be_resumed(tmp_path):
    # docs/reliability.md: "the process is killed; later, in a new process: store.resume(...)".
    # A process killed while the first model request is in flight (the longest wait of most runs)
    # left no row at all, and store.resume said "no run 'fix-1' ... check the id". The run is now
    # checkpointed when it starts, so the state a new process loads holds the prompt.
    import asyncio

    store = RunStore(tmp_path / "runs.sqlite")
    seen: list[str | None] = []

    def first_request(request):
        # what a new process finds if this one dies now
        other = RunStore(tmp_path / "runs.sqlite")
        try:
            seen.append(other.load("fix-1") if "fix-1" in {r.run_id for r in other.runs()} else None)
        finally:
            other.close()
        return "the report is fixed"

    model = toolwire.model("scripted", responses=[first_request])
    result = asyncio.run(store.run(model, "Fix the report", tools=[add], run_id="fix-1"))
    store.close()
    assert result.text == "the report is fixed"
    assert len(seen) == 1 and seen[0] is not None
    crashed = toolwire.RunState.from_json(seen[0])
    assert crashed.status == "running" and crashed.conversation.messages[0].text == "Fix the report"

    # that checkpoint, alone in a store (as after the crash), resumes: the model is asked again
    after_crash = RunStore(tmp_path / "after-crash.sqlite")
    after_crash.save(crashed)
    again = asyncio.run(
        after_crash.resume("fix-1", toolwire.model("scripted", responses=["fixed on resume"]), tools=[add])
    )
    assert again.text == "fixed on resume" and again.run_id == "fix-1"
    assert [m.text for m in again.conversation.messages] == ["Fix the report", "fixed on resume"]
    after_crash.close()

    # the checkpointer callback (for a stream you drive yourself) saves a new run at its start too
    store = RunStore(tmp_path / "cb.sqlite")

    async def with_checkpointer() -> None:
        stream = toolwire.run_stream(toolwire.model("scripted", responses=["x"]), "Fix the report", run_id="fix-3")
        on_event = store.checkpointer(stream.state)
        async for event in stream:
            on_event(event)
            break
        await stream.aclose()

    asyncio.run(with_checkpointer())
    assert toolwire.RunState.from_json(store.load("fix-3")).conversation.messages[0].text == "Fix the report"
    store.close()
