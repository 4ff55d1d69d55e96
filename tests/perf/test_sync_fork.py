"""The synchronous facade after ``os.fork()``: the child makes its own event loop (the
parent's, made before the fork, is never reused) and the thread that forked counts as the
child's main thread."""

from __future__ import annotations

import os
import threading
import warnings
from typing import Any

import pytest

import toolwire
import toolwire._sync as sync_mod
from toolwire.testing import ScriptedModel


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_a_forked_child_makes_its_own_loop_and_its_forking_thread_is_its_main_thread():
    before = toolwire.run_sync(ScriptedModel(responses=["hello"]), "hi").text
    parent_loop = sync_mod._thread_loop().loop
    out: dict[str, Any] = {}

    def fork_here() -> None:
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: report and leave at once
            try:
                text = toolwire.run_sync(ScriptedModel(responses=["child"]), "hi").text
                fresh = sync_mod._thread_loop().loop is not parent_loop
                main = sync_mod._main_ident == threading.get_ident()
                os.write(write, f"{text}|{fresh}|{main}".encode())
            finally:
                os._exit(0)
        os.close(write)
        with os.fdopen(read) as f:
            out["child"] = f.read()
        os.waitpid(pid, 0)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # fork while other threads exist
        worker = threading.Thread(target=fork_here)  # forked from a thread that is not the main one
        worker.start()
        worker.join(timeout=120)
    assert before == "hello"
    assert out["child"].split("|") == ["child", "True", "True"]
    assert sync_mod._main_ident == threading.main_thread().ident  # the parent's is unchanged
