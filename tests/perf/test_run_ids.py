"""Run ids are read from ``os.urandom`` many at a time: each is still a version-4 UUID in hex,
never handed out twice (threads, a forked child), and a run gets a new one."""

from __future__ import annotations

import os
import threading
import uuid

import pytest

import toolwire
from toolwire import loop as loop_mod
from toolwire.loop import _new_run_id
from toolwire.testing import ScriptedModel


def test_ids_over_several_reads_are_distinct_version_4_uuids() -> None:
    ids = [_new_run_id() for _ in range(loop_mod._RUN_IDS_PER_READ * 5 + 3)]
    assert len(set(ids)) == len(ids)
    for rid in ids:
        u = uuid.UUID(hex=rid)
        assert rid == u.hex and u.version == 4 and u.variant == uuid.RFC_4122


def test_threads_taking_ids_at_once_never_get_the_same_one() -> None:
    got: list[list[str]] = [[] for _ in range(8)]
    start = threading.Barrier(8, timeout=60)

    def take(k: int) -> None:
        start.wait()
        got[k].extend(_new_run_id() for _ in range(500))

    threads = [threading.Thread(target=take, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    every = [rid for ids in got for rid in ids]
    assert len(every) == 8 * 500
    assert len(set(every)) == len(every)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_a_forked_child_does_not_repeat_the_ids_its_parent_read() -> None:
    _new_run_id()  # the parent now holds ids it read but has not handed out
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        try:
            os.write(write, "".join(_new_run_id() for _ in range(5)).encode())
        finally:
            os._exit(0)
    os.close(write)
    chunks = []
    while chunk := os.read(read, 4096):
        chunks.append(chunk)
    os.close(read)
    os.waitpid(pid, 0)
    text = b"".join(chunks).decode()
    child = {text[k : k + 32] for k in range(0, len(text), 32)}
    parent = {_new_run_id() for _ in range(loop_mod._RUN_IDS_PER_READ)}
    assert len(child) == 5
    assert not child & parent


def test_each_run_gets_its_own_id_and_a_given_one_is_kept() -> None:
    a = toolwire.run_sync(ScriptedModel(responses=["one"]), "go")
    b = toolwire.run_sync(ScriptedModel(responses=["two"]), "go")
    c = toolwire.run_sync(ScriptedModel(responses=["three"]), "go", run_id="mine")
    assert a.run_id != b.run_id
    assert uuid.UUID(hex=a.run_id).version == 4 and uuid.UUID(hex=b.run_id).version == 4
    assert c.run_id == "mine"
