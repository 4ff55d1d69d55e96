"""OpenAI Responses client-side tools answered by the loop, through the real ``openai`` SDK over
``httpx2.MockTransport``: shell, local shell, apply_patch, computer, MCP approval requests.

Every canned response is validated against ``openai.types.responses.Response`` (so each call item
is one the API could send: ``ResponseFunctionShellToolCall``, ``LocalShellCall``,
``ResponseApplyPatchToolCall``, ``ResponseComputerToolCall``, ``McpApprovalRequest``), and every
answer toolwire sends against the SDK's input item type (``ResponseInputItemParam``: the
``ShellCallOutput``, ``LocalShellCallOutput``, ``ApplyPatchCallOutput``, ``ComputerCallOutput``,
``McpApprovalResponse`` TypedDicts), besides the exact values the tests expect. The expected
answers are written here by hand from those types, not produced by toolwire's encoder.
"""

from __future__ import annotations

import base64
import json
from typing import Any

import httpx2
import pydantic
import pytest

import toolwire
from toolwire import Approved, Denied, ImagePart, ProviderTool
from toolwire.errors import ConfigurationError

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
)
PNG_URL = "data:image/png;base64," + base64.b64encode(PNG).decode()


def response(output: list[dict[str, Any]], rid: str = "resp_1") -> dict[str, Any]:
    return {
        "id": rid,
        "object": "response",
        "created_at": 1,
        "model": "gpt-5",
        "status": "completed",
        "output": output,
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "usage": {
            "input_tokens": 10,
            "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
            "output_tokens": 5,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": 15,
        },
    }


def said(text: str, rid: str = "resp_end") -> dict[str, Any]:
    return response(
        [
            {
                "type": "message",
                "id": "msg_1",
                "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": text, "annotations": []}],
            }
        ],
        rid,
    )


def sse(body: dict[str, Any]) -> bytes:
    events: list[dict[str, Any]] = [
        {"type": "response.created", "response": {**body, "status": "in_progress", "output": []}}
    ]
    for i, item in enumerate(body["output"]):
        events.append(
            {"type": "response.output_item.added", "output_index": i, "item": {**item, "status": "in_progress"}}
        )
        if item["type"] == "message":
            delta = item["content"][0]["text"]
            events.append({"type": "response.output_text.delta", "output_index": i, "content_index": 0, "delta": delta})
        events.append({"type": "response.output_item.done", "output_index": i, "item": item})
    events.append({"type": "response.completed", "response": body})
    return "".join(
        f"event: {e['type']}\ndata: {json.dumps({**e, 'sequence_number': n})}\n\n" for n, e in enumerate(events)
    ).encode()


def make(answers: list[dict[str, Any]], stream: bool = False) -> tuple[Any, list[dict[str, Any]]]:
    import openai.types.responses as ot

    for a in answers:  # every canned answer is a response the API could send
        ot.Response.model_validate(a)
    sent: list[dict[str, Any]] = []
    queue = list(answers)

    def respond(request: httpx2.Request) -> httpx2.Response:
        sent.append(json.loads(request.content))
        body = queue.pop(0)
        if stream:
            return httpx2.Response(200, content=sse(body), headers={"content-type": "text/event-stream"})
        return httpx2.Response(200, json=body)

    model = toolwire.model(
        "openai:gpt-5",
        api_key="sk-test",
        max_retries=0,
        stream=stream,
        http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(respond)),
    )
    return model, sent


def valid_bodies(sent: list[dict[str, Any]]) -> None:
    """Every request body passes the independent Responses validator (tests/vendor_rules/validator)."""
    import sys
    from pathlib import Path

    tests = str(Path(__file__).resolve().parent.parent)
    if tests not in sys.path:
        sys.path.insert(0, tests)
    from vendor_rules.validator import validate

    for body in sent:
        assert [str(v) for v in validate("openai", body)] == []


def valid_input_items(items: list[dict[str, Any]]) -> None:
    """Each item is a ``ResponseInputItemParam`` (the SDK's TypedDict union), checked strictly."""
    from openai.types.responses import ResponseInputItemParam

    adapter = pydantic.TypeAdapter(ResponseInputItemParam)
    for item in items:
        adapter.validate_python(item, strict=True)


# -- shell -------------------------------------------------------------------------------------------------------------

SHELL_CALL = {
    "type": "shell_call",
    "id": "sh_1",
    "call_id": "call_sh1",
    "status": "completed",
    "action": {
        "commands": [
            'python -c "print(6 * 7)"',
            "python -c \"import sys; sys.stderr.write('bad'); sys.exit(3)\"",
            "nosuchprogram-x",
        ],
        "timeout_ms": 20000,
        "max_output_length": 2000,
    },
    "environment": {"type": "local"},
}


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
def test_shell_call_runs_confined_and_is_answered_with_per_command_outputs(tmp_path, stream) -> None:
    import openai.types.responses as ot
    from toolwire_openai import confined_shell

    ot.ResponseFunctionShellToolCall.model_validate(SHELL_CALL)
    model, sent = make([response([SHELL_CALL]), said("done")], stream=stream)
    result = toolwire.run_sync(model, "Compute.", tools=[confined_shell(tmp_path)])
    assert result.text == "done"
    assert sent[0]["tools"] == [{"type": "shell", "environment": {"type": "local"}}]
    # the loop ran it as a tool call named "shell" with the vendor's action as its argument
    (run,) = result.tool_runs
    assert (run.call.id, run.call.name, run.call.arguments) == ("call_sh1", "shell", {"action": SHELL_CALL["action"]})
    assert result.turns[0].response.stop_reason == "tool_use"
    call_back, answer = sent[1]["input"][1:]
    assert call_back == SHELL_CALL  # the call item goes back as received
    want = {
        "type": "shell_call_output",
        "call_id": "call_sh1",
        "output": [
            {"stdout": "42", "stderr": "", "outcome": {"type": "exit", "exit_code": 0}},
            {"stdout": "", "stderr": "bad", "outcome": {"type": "exit", "exit_code": 3}},
            {
                "stdout": "",
                "stderr": "program 'nosuchprogram-x' was not found on PATH\n"
                "Check the spelling; give the program name alone, arguments as separate list items.\n"
                "Retrying the same call will fail again; change the arguments.",
                "outcome": {"type": "exit", "exit_code": 127},
            },
        ],
        "max_output_length": 2000,
    }
    assert answer == want
    valid_input_items([call_back, answer])
    valid_bodies(sent)


def test_shell_output_is_cut_to_max_output_length_and_a_timeout_is_an_outcome(tmp_path) -> None:
    from toolwire_openai import confined_shell

    cut = {
        **SHELL_CALL,
        "action": {
            "commands": ["python -c \"print('x' * 50)\"", "rm -rf ."],
            "timeout_ms": 60000,
            "max_output_length": 10,
        },
    }
    # the short limit only on a command that sleeps far longer, so a slow interpreter start cannot matter
    slow = {
        **SHELL_CALL,
        "id": "sh_2",
        "call_id": "call_sh2",
        "action": {"commands": ['python -c "import time; time.sleep(60)"'], "timeout_ms": 1500},
    }
    model, sent = make([response([cut, slow]), said("ok")])
    toolwire.run_sync(model, "Go.", tools=[confined_shell(tmp_path, timeout=60, allowed_commands=["python"])])
    answer, timed = sent[1]["input"][3:]
    assert answer["output"][0] == {"stdout": "x" * 10, "stderr": "", "outcome": {"type": "exit", "exit_code": 0}}
    assert answer["output"][1]["outcome"] == {"type": "exit", "exit_code": 127}
    assert answer["output"][1]["stderr"].startswith("program 'rm' is not allowed here")
    assert answer["max_output_length"] == 10
    assert timed["call_id"] == "call_sh2" and timed["output"][0]["outcome"] == {"type": "timeout"}
    assert "max_output_length" not in timed
    valid_input_items([answer, timed])


def test_a_shell_call_run_in_openais_container_stays_a_hosted_item(tmp_path) -> None:
    hosted = {**SHELL_CALL, "environment": {"type": "container_reference", "container_id": "cntr_1"}}
    out = {
        "type": "shell_call_output",
        "id": "sho_1",
        "call_id": "call_sh1",
        "status": "completed",
        "output": [{"stdout": "42\n", "stderr": "", "outcome": {"type": "exit", "exit_code": 0}}],
    }
    model, sent = make([response([hosted, out, said("42")["output"][0]])])
    result = toolwire.run_sync(
        model, "Go.", tools=[ProviderTool("openai", "shell", {"environment": {"type": "container_auto"}})]
    )
    assert result.tool_runs == [] and result.text == "42"
    assert [p.vendor_type for p in result.turns[0].response.provider_tool_parts] == ["shell_call", "shell_call_output"]


# -- local shell -------------------------------------------------------------------------------------------------------


def test_local_shell_call_runs_in_its_working_directory_inside_the_root(tmp_path) -> None:
    from openai.types.responses.response_output_item import LocalShellCall
    from toolwire_openai import confined_local_shell

    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "a.txt").write_text("alpha")
    call = {
        "type": "local_shell_call",
        "id": "lsh_1",
        "call_id": "call_ls1",
        "status": "completed",
        "action": {
            "type": "exec",
            "command": [
                "python",
                "-c",
                "import os; print(open('a.txt').read(), os.environ['GREETING'], 'LD_PRELOAD' in os.environ)",
            ],
            "env": {"GREETING": "hi", "LD_PRELOAD": "/tmp/evil.so", "PYTHONSTARTUP": "evil.py"},
            "timeout_ms": 20000,
            "user": None,
            "working_directory": "sub",
        },
    }
    outside = {**call, "call_id": "call_ls2", "id": "lsh_2", "action": {**call["action"], "working_directory": "/etc"}}
    LocalShellCall.model_validate(call)
    model, sent = make([response([call, outside]), said("ok")])
    result = toolwire.run_sync(model, "Read it.", tools=[confined_local_shell(tmp_path)])
    first, second = sent[1]["input"][3:]
    assert sent[0]["tools"] == [{"type": "local_shell"}]
    assert (first["type"], first["id"], set(first)) == ("local_shell_call_output", "call_ls1", {"type", "id", "output"})
    data = json.loads(first["output"])
    assert data["output"] == "alpha hi False\n" and data["metadata"]["exit_code"] == 0  # no loader variables
    assert data["metadata"]["timed_out"] is False and data["metadata"]["duration_seconds"] >= 0
    # a working directory outside the root: an error answer, nothing run there
    assert result.tool_runs[1].is_error
    err = json.loads(second["output"])
    assert err["metadata"] == {"exit_code": 1}
    assert err["output"].startswith("working directory '/etc' is an absolute path outside the root directory")
    valid_input_items([first, second])
    valid_bodies(sent)


# -- apply_patch -------------------------------------------------------------------------------------------------------


def patch_call(n: int, operation: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "apply_patch_call",
        "id": f"apc_{n}",
        "call_id": f"call_p{n}",
        "status": "completed",
        "operation": operation,
    }


def test_apply_patch_creates_updates_and_deletes_inside_the_root_and_reports_failures(tmp_path) -> None:
    import openai.types.responses as ot
    from toolwire_openai import confined_apply_patch

    root = tmp_path / "proj"
    root.mkdir()
    (root / "app.py").write_text("def total(xs):\n    s = 0\n    for x in xs:\n        s += x\n    return s\n")
    (root / "old.txt").write_text("bye\n")
    (tmp_path / "outside.txt").write_text("keep\n")
    ops = [
        {"type": "create_file", "path": "pkg/new.py", "diff": "+X = 1\n+Y = 2\n"},
        {
            "type": "update_file",
            "path": "app.py",
            "diff": "@@ def total(xs):\n-    s = 0\n+    s = 0.0\n     for x in xs:\n-        s += x\n+        s += float(x)\n",
        },
        {"type": "delete_file", "path": "old.txt"},
        {"type": "update_file", "path": "app.py", "diff": "@@\n-    return t\n+    return s\n"},
        {"type": "update_file", "path": "../outside.txt", "diff": "-keep\n+gone\n"},
        {"type": "create_file", "path": "app.py", "diff": "+again\n"},
    ]
    calls = [patch_call(i, op) for i, op in enumerate(ops, start=1)]
    for c in calls:
        ot.ResponseApplyPatchToolCall.model_validate(c)
    model, sent = make([response(calls), said("patched")])
    result = toolwire.run_sync(model, "Fix it.", tools=[confined_apply_patch(root)])
    assert sent[0]["tools"] == [{"type": "apply_patch"}]
    assert (root / "pkg" / "new.py").read_text() == "X = 1\nY = 2\n"
    assert (root / "app.py").read_text() == (
        "def total(xs):\n    s = 0.0\n    for x in xs:\n        s += float(x)\n    return s\n"
    )
    assert not (root / "old.txt").exists()
    assert (tmp_path / "outside.txt").read_text() == "keep\n"
    answers = sent[1]["input"][1 + len(calls) :]
    assert [(a["type"], a["call_id"], a["status"]) for a in answers] == [
        ("apply_patch_call_output", "call_p1", "completed"),
        ("apply_patch_call_output", "call_p2", "completed"),
        ("apply_patch_call_output", "call_p3", "completed"),
        ("apply_patch_call_output", "call_p4", "failed"),
        ("apply_patch_call_output", "call_p5", "failed"),
        ("apply_patch_call_output", "call_p6", "failed"),
    ]
    assert answers[0]["output"] == "created pkg/new.py (2 lines)"
    assert answers[1]["output"] == "updated app.py (5 -> 5 lines)"
    assert answers[2]["output"] == "deleted old.txt"
    assert answers[3]["output"].startswith(
        "hunk 1 of the diff for app.py: these context and removed lines are not in the file:\n    return t\n"
    )
    assert "leaves the root directory" in answers[4]["output"]
    assert answers[5]["output"].startswith("'app.py' already exists")
    valid_input_items(answers)
    valid_bodies(sent)
    assert result.tool_errors == 3


# -- computer ----------------------------------------------------------------------------------------------------------

CHECK = {"id": "cu_sc_1", "code": "malicious_instructions", "message": "The page asks to ignore instructions."}


def computer_call(n: int, action: dict[str, Any], checks: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return {
        "type": "computer_call",
        "id": f"cu_{n}",
        "call_id": f"call_c{n}",
        "status": "completed",
        "action": action,
        "pending_safety_checks": checks or [],
    }


def test_computer_actions_run_the_users_function_and_safety_checks_wait_for_approval() -> None:
    import openai.types.responses as ot
    from toolwire_openai import computer

    done: list[dict[str, Any]] = []

    def screen(action: dict[str, Any]) -> bytes:
        done.append(action)
        return PNG

    first = computer_call(1, {"type": "click", "x": 10, "y": 20, "button": "left"})
    second = computer_call(2, {"type": "type", "text": "hello"}, [CHECK])
    for c in (first, second):
        ot.ResponseComputerToolCall.model_validate(c)
    model, sent = make([response([first], "resp_1"), response([second], "resp_2"), said("typed")])
    tools = [computer(screen)]
    paused = toolwire.run_sync(model, "Type hello.", tools=tools)
    assert sent[0]["tools"] == [{"type": "computer"}]
    assert done == [first["action"]]  # the call with a safety check did not run
    assert paused.stop_reason == "pending"
    (pending,) = paused.pending
    assert (pending.call.id, pending.kind) == ("call_c2", "approval")
    assert (
        pending.reason
        == "OpenAI's safety checks ask for confirmation: malicious_instructions: The page asks to ignore instructions."
    )
    # the first answer: the screenshot, no acknowledgement (there was no check)
    answer1 = sent[1]["input"][2]
    assert answer1 == {
        "type": "computer_call_output",
        "call_id": "call_c1",
        "output": {"type": "computer_screenshot", "image_url": PNG_URL},
    }
    saved = toolwire.RunResult.from_json(paused.to_json())  # the pause survives a save and a reload
    done_run = toolwire.run_sync(model, tools=tools, resume=saved, decisions={"call_c2": Approved()})
    assert done_run.text == "typed"
    assert done == [first["action"], second["action"]]
    answer2 = sent[2]["input"][-1]
    assert answer2 == {
        "type": "computer_call_output",
        "call_id": "call_c2",
        "output": {"type": "computer_screenshot", "image_url": PNG_URL},
        "acknowledged_safety_checks": [CHECK],
    }
    valid_input_items([answer1, answer2])
    valid_bodies(sent)


def test_a_denied_computer_call_is_answered_with_the_last_screen_and_no_acknowledgement() -> None:
    from toolwire_openai import computer

    first = computer_call(1, {"type": "screenshot"})
    second = computer_call(2, {"type": "click", "x": 1, "y": 2, "button": "left"}, [CHECK])
    model, sent = make([response([first]), response([second]), said("stopped")])
    tools = [computer(lambda action: PNG)]
    paused = toolwire.run_sync(model, "Click.", tools=tools)
    toolwire.run_sync(model, tools=tools, resume=paused, decisions={"call_c2": Denied("not on this page")})
    answer, note = sent[2]["input"][-2:]
    assert answer == {
        "type": "computer_call_output",
        "call_id": "call_c2",
        "output": {"type": "computer_screenshot", "image_url": PNG_URL},
    }
    assert note["role"] == "user" and note["content"][0]["text"].startswith(
        "The computer action failed: Not run: the user refused this call to 'computer'. Reason: not on this page"
    )
    valid_input_items([answer, note])


def test_a_screenshot_by_a_url_openai_cannot_fetch_is_a_note_with_the_last_screen() -> None:
    """A screenshot the function returns by a local URL is not sent (rule
    ``openai.conversation.image-url``): the call is answered with the last screenshot sent and a
    note saying so, reported as lossy, and the run goes on."""
    from toolwire_openai import computer

    shots = iter([PNG, ImagePart(url="file:///tmp/screen.png")])
    first = computer_call(1, {"type": "screenshot"})
    second = computer_call(2, {"type": "click", "x": 1, "y": 2, "button": "left"})
    model, sent = make([response([first]), response([second]), said("clicked")])
    result = toolwire.run_sync(model, "Click.", tools=[computer(lambda action: next(shots))])
    assert result.text == "clicked"
    answer, note = sent[2]["input"][-2:]
    assert answer == {
        "type": "computer_call_output",
        "call_id": "call_c2",
        "output": {"type": "computer_screenshot", "image_url": PNG_URL},
    }
    assert note == {
        "role": "user",
        "content": [
            {
                "type": "input_text",
                "text": "[the tool returned an image by a URL this API cannot fetch (file:...); it is not sent. "
                "Return the image's bytes.]",
            }
        ],
    }
    assert "file:///tmp/screen.png" not in json.dumps(sent[2])
    changes = [c for c in result.turns[-1].response.preflight.changes if c.rule == "openai.conversation.image-url"]
    assert [(c.lossy, c.call_id) for c in changes] == [(True, "call_c2")]
    valid_input_items([answer, note])


def test_acknowledge_accepts_checks_without_a_pause_and_a_batched_call_runs_each_action() -> None:
    from toolwire_openai import computer

    seen: list[str] = []

    def screen(action: dict[str, Any]) -> bytes | None:
        seen.append(action["type"])
        return PNG if action["type"] == "screenshot" else None

    batched = {
        **computer_call(1, {"type": "wait"}, [CHECK]),
        "action": None,
        "actions": [{"type": "move", "x": 1, "y": 1}, {"type": "keypress", "keys": ["ENTER"]}],
    }
    model, sent = make([response([batched]), said("ok")])
    result = toolwire.run_sync(model, "Go.", tools=[computer(screen, acknowledge=lambda checks: checks == [CHECK])])
    assert result.text == "ok" and seen == ["move", "keypress", "screenshot"]
    assert result.tool_runs[0].call.arguments == {"actions": batched["actions"]}
    assert sent[1]["input"][2]["acknowledged_safety_checks"] == [CHECK]


# -- MCP approval requests ---------------------------------------------------------------------------------------------

APPROVAL = {
    "type": "mcp_approval_request",
    "id": "mcpr_1",
    "arguments": '{"sides": 6}',
    "name": "roll",
    "server_label": "dice",
}


def test_mcp_approval_requests_go_through_toolwire_approval() -> None:
    from openai.types.responses.response_output_item import McpApprovalRequest
    from toolwire_openai import mcp_server

    McpApprovalRequest.model_validate(APPROVAL)
    model, sent = make([response([APPROVAL]), said("rolled"), response([{**APPROVAL, "id": "mcpr_2"}]), said("fine")])
    tools = [mcp_server("dice", server_url="https://dice.example/mcp")]
    paused = toolwire.run_sync(model, "Roll.", tools=tools)
    assert sent[0]["tools"] == [{"type": "mcp", "server_label": "dice", "server_url": "https://dice.example/mcp"}]
    (pending,) = paused.pending
    assert pending.call.name == "mcp:dice"
    assert pending.call.arguments == {"server_label": "dice", "name": "roll", "arguments": {"sides": 6}}
    assert pending.reason == "the MCP server 'dice' asks to run its tool 'roll'"
    toolwire.run_sync(model, tools=tools, resume=paused, decisions={"mcpr_1": Approved()})
    assert sent[1]["input"][1:] == [
        APPROVAL,
        {"type": "mcp_approval_response", "approval_request_id": "mcpr_1", "approve": True},
    ]
    paused2 = toolwire.run_sync(model, "Again.", tools=tools)
    toolwire.run_sync(model, tools=tools, resume=paused2, decisions={"mcpr_2": Denied("enough dice")})
    denial = sent[3]["input"][-1]
    assert denial["type"] == "mcp_approval_response" and denial["approve"] is False
    assert denial["reason"].startswith("Not run: the user refused this call to 'mcp:dice'. Reason: enough dice")
    valid_input_items([sent[1]["input"][2], denial])
    valid_bodies(sent)


def test_an_approve_function_answers_without_a_pause() -> None:
    from toolwire_openai import mcp_server

    model, sent = make([response([APPROVAL, {**APPROVAL, "id": "mcpr_2", "name": "wipe"}]), said("ok")])
    tools = [
        mcp_server(
            "dice", server_url="https://dice.example/mcp", approve=lambda r: r["name"] == "roll" or "not that tool"
        )
    ]
    result = toolwire.run_sync(model, "Roll.", tools=tools)
    assert result.stop_reason == "end_turn"
    assert sent[1]["input"][3:] == [
        {"type": "mcp_approval_response", "approval_request_id": "mcpr_1", "approve": True},
        {"type": "mcp_approval_response", "approval_request_id": "mcpr_2", "approve": False, "reason": "not that tool"},
    ]


# -- no function: refused before the request, or an error answer the vendor takes ----------------------------------------


@pytest.mark.parametrize(
    "tool,factory",
    [
        (ProviderTool("openai", "shell"), "toolwire_openai.confined_shell(root)"),
        (ProviderTool("openai", "local_shell"), "toolwire_openai.confined_local_shell(root)"),
        (ProviderTool("openai", "apply_patch"), "toolwire_openai.confined_apply_patch(root)"),
        (ProviderTool("openai", "computer"), "toolwire_openai.computer(function)"),
        (
            ProviderTool("openai", "mcp", {"server_label": "dice", "server_url": "https://d.example"}),
            "toolwire_openai.mcp_server",
        ),
    ],
    ids=["shell", "local_shell", "apply_patch", "computer", "mcp"],
)
def test_a_client_side_tool_without_a_function_is_refused_before_the_request(tool, factory) -> None:
    model, sent = make([said("never sent")])
    with pytest.raises(ConfigurationError) as info:
        toolwire.run_sync(model, "Go.", tools=[tool])
    assert factory in str(info.value)
    assert sent == []


def test_an_mcp_server_that_never_asks_needs_no_function() -> None:
    model, sent = make([said("ok")])
    tool = ProviderTool(
        "openai", "mcp", {"server_label": "d", "server_url": "https://d.example", "require_approval": "never"}
    )
    assert toolwire.run_sync(model, "Go.", tools=[tool]).text == "ok"


def test_a_call_for_a_client_tool_the_user_did_not_give_is_answered_with_an_error_item(tmp_path) -> None:
    from toolwire_openai import confined_shell

    stray = [
        patch_call(1, {"type": "delete_file", "path": "x"}),
        computer_call(2, {"type": "screenshot"}),
        APPROVAL,
    ]
    model, sent = make([response(stray), said("ok")])
    result = toolwire.run_sync(model, "Go.", tools=[confined_shell(tmp_path)])
    assert [r.status for r in result.tool_runs] == ["invalid", "invalid", "invalid"]
    answers = sent[1]["input"][4:]
    assert answers[0]["type"] == "apply_patch_call_output" and answers[0]["status"] == "failed"
    assert answers[0]["output"].startswith("Unknown tool 'apply_patch'.")
    assert answers[1]["type"] == "computer_call_output" and answers[1]["output"]["image_url"].startswith(
        "data:image/png"
    )
    assert answers[2]["role"] == "user" and "Unknown tool 'computer'" in answers[2]["content"][0]["text"]
    assert answers[3] == {
        "type": "mcp_approval_response",
        "approval_request_id": "mcpr_1",
        "approve": False,
        "reason": "Unknown tool 'mcp:dice'.\nThe mcp: calls this run answers: none. To answer approval requests "
        "from the MCP server 'dice', add toolwire_openai.mcp_server('dice', server_url=...) to the run's tools.",
    }
    valid_input_items(answers)


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
def test_an_approval_request_of_an_unknown_mcp_server_names_the_runs_servers_not_computer(stream) -> None:
    """A label close to another tool's name ('compute' ~ 'computer') got "Did you mean 'computer'?
    Call one of the available tools: computer, mcp:docs" -- a computer call is no answer to an MCP
    server's approval request. The error names the run's mcp:<label> servers and how to add one."""
    from toolwire_openai import computer, mcp_server

    request = {**APPROVAL, "server_label": "compute"}
    model, sent = make([response([request]), said("ok")], stream=stream)
    tools = [computer(lambda action: b"\x89PNG"), mcp_server("docs", server_url="https://docs.example/mcp")]
    result = toolwire.run_sync(model, "Go.", tools=tools)
    (run,) = result.tool_runs
    assert run.status == "invalid" and run.call.name == "mcp:compute"
    reason = sent[1]["input"][-1]["reason"]
    assert reason == run.result.content
    assert reason == (
        "Unknown tool 'mcp:compute'.\nThe mcp: calls this run answers: mcp:docs. To answer approval requests from "
        "the MCP server 'compute', add toolwire_openai.mcp_server('compute', server_url=...) to the run's tools."
    )
    assert "computer" not in reason.replace("'compute'", "")
    assert sent[1]["input"][-1]["approve"] is False
    valid_input_items([sent[1]["input"][-1]])
    valid_bodies(sent)


@pytest.mark.parametrize(
    "factory,action,message",
    [
        ("confined_shell", {"commands": []}, "action.commands must be a non-empty list of command lines"),
        ("confined_shell", {"commands": ["ls", 3]}, "action.commands must be a non-empty list of command lines"),
        (
            "confined_local_shell",
            {"type": "exec", "command": "ls -la"},
            "action.command must be a non-empty list of strings (the program, then its arguments)",
        ),
    ],
)
def test_a_shell_action_without_its_list_of_strings_is_a_tool_error_saying_what_to_send(
    tmp_path, factory, action, message
) -> None:
    import toolwire_openai

    from toolwire.errors import ToolError

    tool = getattr(toolwire_openai, factory)(tmp_path)
    with pytest.raises(ToolError) as info:
        tool.function(action)
    assert str(info.value) == message and info.value.retryable is False
    assert info.value.hint == (
        'Send e.g. {"commands": ["ls -la"]}.'
        if factory == "confined_shell"
        else 'Send e.g. {"command": ["ls", "-la"]}.'
    )


def test_an_async_acknowledge_is_awaited_a_decline_keeps_the_call_waiting() -> None:
    # an async acknowledge's coroutine was taken as true: the action ran and the checks were acknowledged
    from toolwire_openai import computer

    seen: list[str] = []

    def screen(action: dict[str, Any]) -> bytes | None:
        seen.append(action["type"])
        return PNG if action["type"] == "screenshot" else None

    async def decline(checks: list[dict[str, Any]]) -> bool:
        return False

    async def accept(checks: list[dict[str, Any]]) -> bool:
        return checks == [CHECK]

    model, sent = make([response([computer_call(1, {"type": "wait"}, [CHECK])])])
    paused = toolwire.run_sync(model, "Go.", tools=[computer(screen, acknowledge=decline)])
    assert seen == [] and paused.stop_reason == "pending" and len(paused.pending) == 1
    model, sent = make([response([computer_call(1, {"type": "wait"}, [CHECK])]), said("ok")])
    result = toolwire.run_sync(model, "Go.", tools=[computer(screen, acknowledge=accept)])
    assert result.text == "ok" and seen == ["wait", "screenshot"]
    assert sent[1]["input"][2]["acknowledged_safety_checks"] == [CHECK]


def test_apply_patch_counts_lines_in_the_singular_and_the_plural(tmp_path) -> None:
    # the model read "created one.py (1 lines)" and "updated b.py (2 -> 1 lines)"
    from toolwire_openai import confined_apply_patch

    (tmp_path / "a.py").write_text("X = 1\n")
    (tmp_path / "b.py").write_text("X = 1\nY = 2\n")
    ops = [  # (the calls of one turn may run at once: each on a file of its own)
        {"type": "create_file", "path": "one.py", "diff": "+X = 1\n"},
        {"type": "update_file", "path": "a.py", "diff": "@@\n X = 1\n+Y = 2\n"},
        {"type": "update_file", "path": "b.py", "diff": "@@\n-X = 1\n-Y = 2\n+Z = 3\n"},
    ]
    model, sent = make([response([patch_call(i, op) for i, op in enumerate(ops, start=1)]), said("patched")])
    toolwire.run_sync(model, "Edit.", tools=[confined_apply_patch(tmp_path)])
    answers = [a for a in sent[1]["input"] if a.get("type") == "apply_patch_call_output"]
    assert [a["output"] for a in answers] == [
        "created one.py (1 line)",
        "updated a.py (1 -> 2 lines)",
        "updated b.py (2 -> 1 line)",
    ]
    assert (tmp_path / "b.py").read_text() == "Z = 3\n"
