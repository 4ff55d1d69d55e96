"""Findings of the adversarial pass over the client-side vendor tools and the performance
changes: each test reproduces what a careless user or a hostile model did, against the real SDKs
(over a loopback HTTP server where a connection pool matters, else ``httpx2.MockTransport``)."""

from __future__ import annotations

import asyncio
import http.server
import json
import socketserver
import threading
from typing import Any, cast

import pytest

import toolwire

RESPONSES_BODY = {
    "id": "resp_1",
    "object": "response",
    "created_at": 1,
    "model": "gpt-5",
    "status": "completed",
    "output": [
        {
            "type": "message",
            "id": "msg_1",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": "hi", "annotations": []}],
        }
    ],
    "parallel_tool_calls": True,
    "tool_choice": "auto",
    "tools": [],
    "usage": {
        "input_tokens": 1,
        "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
        "output_tokens": 1,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": 2,
    },
}


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive: the SDK's pool keeps the connection between runs

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length", 0)))
        body = json.dumps(RESPONSES_BODY).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


class _Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True


@pytest.fixture
def loopback_responses():
    server = _Server(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()


def test_breaker_one_model_used_by_run_sync_from_two_threads_and_then_asyncio_run(loopback_responses) -> None:
    """run_sync runs on each calling thread's own event loop: the SDK client the model made on the
    first thread's loop (its pooled keep-alive connection) must not be used on another loop
    (it failed with 'bound to a different event loop' / 'Event loop is closed')."""
    model = toolwire.model("openai:gpt-5", api_key="sk-test", base_url=loopback_responses, max_retries=0, timeout=20)
    assert toolwire.run_sync(model, "Hi.").text == "hi"
    seen: dict[str, Any] = {}

    def other_thread() -> None:
        try:
            seen["text"] = toolwire.run_sync(model, "Hi.").text
        except BaseException as exc:  # reported below with its message
            seen["text"] = repr(exc)

    worker = threading.Thread(target=other_thread)
    worker.start()
    worker.join(60)
    assert seen == {"text": "hi"}
    assert toolwire.run_sync(model, "Hi.").text == "hi"  # back on the first thread's loop
    assert asyncio.run(toolwire.run(model, "Hi.")).text == "hi"  # and on a loop of the user's own

    texts: list[str] = []
    lock = threading.Lock()

    def many() -> None:
        try:
            text = toolwire.run_sync(model, "Hi.").text
        except BaseException as exc:
            text = repr(exc)
        with lock:
            texts.append(text)

    workers = [threading.Thread(target=many) for _ in range(6)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(60)
    assert sorted(texts) == ["hi"] * 6


# -- client-side tools: a hostile model -------------------------------------------------------------------------------


def _responses_model(answers: list[dict[str, Any]], validate: bool = True) -> tuple[Any, list[dict[str, Any]]]:
    import httpx2
    import openai.types.responses as ot

    if validate:
        for a in answers:
            ot.Response.model_validate(a)
    sent: list[dict[str, Any]] = []
    queue = list(answers)

    def respond(request: httpx2.Request) -> httpx2.Response:
        sent.append(json.loads(request.content))
        return httpx2.Response(200, json=queue.pop(0))

    model = toolwire.model(
        "openai:gpt-5",
        api_key="sk-test",
        max_retries=0,
        http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(respond)),
    )
    return model, sent


def _with_output(output: list[dict[str, Any]], rid: str) -> dict[str, Any]:
    return {**RESPONSES_BODY, "id": rid, "output": output}


def test_breaker_apply_patch_does_not_write_through_a_hard_link_to_a_file_outside_the_root(tmp_path) -> None:
    import os

    from toolwire_openai import confined_apply_patch

    root = tmp_path / "proj"
    root.mkdir()
    (tmp_path / "secret.txt").write_text("keep\n")
    os.link(tmp_path / "secret.txt", root / "h.txt")  # e.g. left by a build step, or made by an allowed `ln`
    call = {
        "type": "apply_patch_call",
        "id": "apc_1",
        "call_id": "call_p1",
        "status": "completed",
        "operation": {"type": "update_file", "path": "h.txt", "diff": "-keep\n+gone\n"},
    }
    model, sent = _responses_model([_with_output([call], "resp_1"), RESPONSES_BODY])
    result = toolwire.run_sync(model, "Patch it.", tools=[confined_apply_patch(root)])
    assert (tmp_path / "secret.txt").read_text() == "keep\n"
    (answer,) = sent[1]["input"][2:]
    assert (answer["type"], answer["status"]) == ("apply_patch_call_output", "failed")
    assert answer["output"].startswith("path 'h.txt' is a file with 2 hard links")
    assert result.tool_errors == 1


def test_breaker_malformed_pending_safety_checks_still_ask_instead_of_crashing_the_run() -> None:
    """The SDK builds response items without validating them, so a check that is not an object
    reaches the approval rule: the run pauses for approval (it raised AttributeError)."""
    from toolwire_openai import computer

    call = {
        "type": "computer_call",
        "id": "cu_1",
        "call_id": "call_c1",
        "status": "completed",
        "action": {"type": "screenshot"},
        "pending_safety_checks": ["the page asks for a password"],
    }
    model, sent = _responses_model([_with_output([call], "resp_1"), RESPONSES_BODY], validate=False)
    result = toolwire.run_sync(model, "Look.", tools=[computer(lambda action: b"\x89PNG\r\n\x1a\n")])
    assert [p.reason for p in result.pending] == [
        "OpenAI's safety checks ask for confirmation: check: the page asks for a password"
    ]
    assert len(sent) == 1


def _anthropic_model(answers: list[dict[str, Any]]) -> tuple[Any, list[dict[str, Any]]]:
    import anthropic.types as at
    import httpx2

    bodies = [
        {
            "id": f"msg_{i}",
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4-5",
            "content": content,
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": {"input_tokens": 10, "output_tokens": 5},
        }
        for i, (content, stop) in enumerate(answers)
    ]
    for b in bodies:
        at.Message.model_validate(b)
    sent: list[dict[str, Any]] = []

    def respond(request: httpx2.Request) -> httpx2.Response:
        sent.append(json.loads(request.content))
        return httpx2.Response(200, json=bodies[len(sent) - 1])

    model = toolwire.model(
        "anthropic:claude-sonnet-4-5",
        api_key="sk-ant-test",
        max_retries=0,
        http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(respond)),
    )
    return model, sent


def test_breaker_text_editor_insert_does_not_write_through_a_hard_link_to_a_file_outside_the_root(tmp_path) -> None:
    import os

    from toolwire_anthropic import confined_text_editor

    root = tmp_path / "proj"
    root.mkdir()
    (tmp_path / "secret.txt").write_text("keep\n")
    os.link(tmp_path / "secret.txt", root / "h.txt")
    use = {
        "type": "tool_use",
        "id": "toolu_1",
        "name": "str_replace_based_edit_tool",
        "input": {"command": "insert", "path": "h.txt", "insert_line": 0, "insert_text": "owned"},
    }
    model, sent = _anthropic_model([([use], "tool_use"), ([{"type": "text", "text": "ok"}], "end_turn")])
    result = toolwire.run_sync(model, "Edit.", tools=[confined_text_editor(root)])
    assert (tmp_path / "secret.txt").read_text() == "keep\n"
    (answer,) = sent[1]["messages"][2]["content"]
    assert answer["type"] == "tool_result" and answer["is_error"] is True
    text = answer["content"] if isinstance(answer["content"], str) else answer["content"][0]["text"]
    assert text.startswith("path 'h.txt' is a file with 2 hard links")
    assert result.tool_errors == 1


def test_breaker_local_shell_env_cannot_set_variables_that_make_an_allowed_program_run_other_code(tmp_path) -> None:
    """bash's exported functions and trace prompt, git's config-by-environment and helper
    commands, iconv modules, Perl/Ruby/Java/Lua start-up options, npm's and pytest's options all
    make an allowed program run code the model chose; the call's env may not set them."""
    from toolwire_openai import confined_local_shell

    hostile = {
        "BASH_FUNC_ls%%": "() { id; }",
        "SHELLOPTS": "xtrace",
        "PS4": "$(id)",
        "GIT_CONFIG_COUNT": "1",
        "GIT_CONFIG_KEY_0": "core.pager",
        "GIT_CONFIG_VALUE_0": "sh -c id",
        "GIT_SSH_COMMAND": "id",
        "GCONV_PATH": ".",
        "PERL5OPT": "-Mevil",
        "RUBYOPT": "-revil",
        "JAVA_TOOL_OPTIONS": "-javaagent:evil.jar",
        "LUA_INIT": "os.execute('id')",
        "PYTEST_ADDOPTS": "-p evil",
        "npm_config_script_shell": "./evil.sh",
    }
    call = {
        "type": "local_shell_call",
        "id": "lsh_1",
        "call_id": "call_ls1",
        "status": "completed",
        "action": {
            "type": "exec",
            "command": ["python", "-c", "import os, sys; print(sorted(k for k in sys.argv[1:] if k in os.environ))"]
            + [*hostile, "GREETING"],
            "env": {**hostile, "GREETING": "hi"},
            "timeout_ms": 20000,
            "user": None,
            "working_directory": None,
        },
    }
    model, sent = _responses_model([_with_output([call], "resp_1"), RESPONSES_BODY])
    toolwire.run_sync(model, "Run it.", tools=[confined_local_shell(tmp_path)])
    (answer,) = sent[1]["input"][2:]
    assert json.loads(answer["output"])["output"] == "['GREETING']\n"


def test_breaker_v4a_long_hunk_not_in_a_long_file_is_refused_and_near_matches_still_apply() -> None:
    """The search compares a place's first line before the whole block (it compared the whole
    block at every line: a 2,000-line hunk not in a 20,000-line file took seconds of CPU, larger
    ones minutes); the white-space-tolerant passes still find their block."""
    from toolwire_openai.v4a import PatchError, apply_update_diff

    text = "".join(f"line {i}\n" for i in range(20000))
    missing = "".join(f" line {i}\n" for i in range(1, 2000)) + "-not in the file\n+x\n"
    with pytest.raises(PatchError, match="hunk 1 of the diff for app.py: these context and removed lines"):
        apply_update_diff(text, missing, "app.py")
    near = apply_update_diff("a  \n  b\nc\n", " a\n-b\n+B\n c\n", "app.py")  # trailing, then surrounding space
    assert near == "a  \nB\nc\n"  # only the changed line is the diff's; context keeps the file's text


def test_breaker_a_misspelt_public_name_says_which_one_was_meant() -> None:
    with pytest.raises(AttributeError, match=r"no attribute 'runsync'; did you mean toolwire\.run_sync\?") as info:
        toolwire.runsync
    assert info.value.name == "runsync"
    assert not hasattr(toolwire, "no_such_name_at_all")


def test_breaker_toolwire_errors_survive_pickle_with_their_attributes() -> None:
    """A process pool or Ray sends an exception back pickled; errors whose ``__init__`` takes
    other arguments than their message could not be rebuilt (TypeError, or a process pool's
    'A result has failed to un-pickle')."""
    import pickle

    from toolwire.errors import BoundExceeded, MaxTurnsExceeded, ProviderError, ResponseDecodeError, ToolNameError

    call = {
        "type": "function_call",
        "id": "fc_1",
        "call_id": "call_1",
        "name": "again",
        "arguments": "{}",
        "status": "completed",
    }

    @toolwire.tool
    def again() -> str:
        "Call me again."
        return "again"

    model, _ = _responses_model([_with_output([call], "resp_1")])
    with pytest.raises(MaxTurnsExceeded) as info:
        toolwire.run_sync(model, "Loop.", tools=[again], max_turns=1)
    errors: list[BaseException] = [
        ProviderError("openai", "Rate limit reached", status=429, retryable=True, retry_after=2.5, body={"e": 1}),
        ResponseDecodeError("openai", "no output list", "/output"),
        BoundExceeded("schema too deep", bound="MAX_SCHEMA_DEPTH", limit=64, found=65),
        ToolNameError("bad name!"),
        info.value,
    ]
    for error in errors:
        back = pickle.loads(pickle.dumps(error))
        assert type(back) is type(error) and str(back) == str(error)
        assert {k: v for k, v in vars(back).items() if k != "result"} == {
            k: v for k, v in vars(error).items() if k != "result"
        }
    limit = pickle.loads(pickle.dumps(info.value))
    assert limit.conversation == info.value.conversation and len(limit.conversation.messages) == 3
    assert pickle.loads(pickle.dumps(errors[0])).retry_after == 2.5


@pytest.mark.parametrize("returned", [None, ("png", "https://x.example"), 42], ids=["none", "tuple", "int"])
def test_breaker_anthropic_computer_function_returning_garbage_is_an_error_result(returned) -> None:
    """It was sent as a successful tool_result holding '' or the value's repr()."""
    from toolwire_anthropic import computer

    click = {
        "type": "tool_use",
        "id": "toolu_1",
        "name": "left_click",
        "input": {"coordinate": [5, 6]},
        "toolset_name": "computer",
        "caller": {"type": "direct"},
    }
    model, sent = _anthropic_model([([click], "tool_use"), ([{"type": "text", "text": "ok"}], "end_turn")])
    result = toolwire.run_sync(model, "Click.", tools=[computer(lambda name, input: returned)])
    (answer,) = sent[1]["messages"][2]["content"]
    assert (answer["type"], answer["is_error"], answer["toolset_name"]) == ("tool_result", True, "computer")
    text = answer["content"] if isinstance(answer["content"], str) else answer["content"][0]["text"]
    assert text.startswith(f"the computer function returned {type(returned).__name__} for 'left_click'")
    assert result.tool_errors == 1


def test_breaker_a_history_edited_in_place_between_two_runs_is_sent_as_edited() -> None:
    """The user redacts a message of the first run's conversation in place and goes on with it:
    the second run's request must carry the edit (a cached encoding of the conversation already
    sent would silently send the old text), and the tool result changed in place too."""
    call = {
        "type": "function_call",
        "id": "fc_1",
        "call_id": "call_1",
        "name": "lookup",
        "arguments": '{"q": "card"}',
        "status": "completed",
    }

    @toolwire.tool
    def lookup(q: str) -> str:
        "Look a thing up."
        return "card 4111-1111"

    model, sent = _responses_model([_with_output([call], "resp_1"), RESPONSES_BODY, {**RESPONSES_BODY, "id": "resp_3"}])
    first = toolwire.run_sync(model, "My card is 4111-1111, look it up.", tools=[lookup])
    conversation = first.conversation
    conversation.messages[0].parts[0].text = "My card is [redacted], look it up."
    result_part = conversation.messages[2].parts[0]
    result_part.content = "card [redacted]"
    toolwire.run_sync(model, "Thanks.", conversation=conversation, tools=[lookup])
    body = json.dumps(sent[2]["input"])
    assert "4111" not in body
    assert body.count("[redacted]") == 2 and "Thanks." in body


def _lookup_call(i: int) -> dict[str, Any]:
    """A Responses ``function_call`` item calling ``lookup``."""
    return {
        "type": "function_call",
        "id": f"fc_{i}",
        "call_id": f"call_{i}",
        "name": "lookup",
        "arguments": '{"q": "x"}',
        "status": "completed",
    }


@toolwire.tool(name="lookup")
def _lookup(q: str) -> str:
    "Look a thing up."
    return "result"


def test_breaker_a_message_edited_in_place_during_the_run_is_sent_as_edited() -> None:
    from toolwire.types import Message, TextPart

    conversation = toolwire.Conversation([Message("user", [TextPart("my card is 4111")])])
    runs: list[Any] = []

    def redact(run: Any) -> None:
        runs.append(run)
        if len(runs) == 2:  # the prompt was sent twice already
            conversation.messages[0].parts[0].text = "my card is [redacted]"

    model, sent = _responses_model(
        [_with_output([_lookup_call(1)], "resp_1"), _with_output([_lookup_call(2)], "resp_2"), RESPONSES_BODY]
    )
    toolwire.run_sync(model, conversation=conversation, tools=[_lookup], after_tool_call=redact)
    assert sent[2]["input"][0] == {"role": "user", "content": "my card is [redacted]"}


def test_a_tool_result_edited_in_nested_content_during_the_run_is_sent_as_edited() -> None:
    """The copy kept of each message is deep: an edit inside a nested value (the text inside an
    earlier tool result's content list, redacted by a hook mid-run) is seen, and so is a part
    replaced in a message's list of parts."""
    from toolwire.types import Message, TextPart, ToolCall, ToolResult

    old_result = ToolResult("call_0", [TextPart("secret 4111")])
    question = Message("user", [TextPart("card 4111, look it up")])
    conversation = toolwire.Conversation(
        [
            Message("user", [TextPart("first")]),
            Message("assistant", [ToolCall("call_0", "lookup", {"q": "a"})]),
            Message("user", [old_result]),
            Message("assistant", [TextPart("ok")]),
            question,
        ]
    )
    runs: list[Any] = []

    def redact(run: Any) -> None:
        runs.append(run)
        if len(runs) == 2:  # both were sent twice already
            cast(Any, old_result.content)[0].text = "[redacted]"
            question.parts[0] = TextPart("card [redacted], look it up")

    model, sent = _responses_model(
        [_with_output([_lookup_call(1)], "resp_1"), _with_output([_lookup_call(2)], "resp_2"), RESPONSES_BODY]
    )
    toolwire.run_sync(model, conversation=conversation, tools=[_lookup], after_tool_call=redact)
    assert "4111" in json.dumps(sent[1]["input"])  # before the edit
    last = json.dumps(sent[2]["input"])
    assert "4111" not in last and last.count("[redacted]") == 2


def _patch_answer(tmp_path: Any, root: Any, operation: dict[str, Any]) -> dict[str, Any]:
    from toolwire_openai import confined_apply_patch

    call = {
        "type": "apply_patch_call",
        "id": "apc_1",
        "call_id": "call_p1",
        "status": "completed",
        "operation": operation,
    }
    model, sent = _responses_model([_with_output([call], "resp_1"), RESPONSES_BODY])
    toolwire.run_sync(model, "Patch it.", tools=[confined_apply_patch(root)])
    (answer,) = sent[1]["input"][2:]
    return answer


def test_apply_patch_delete_of_a_symbolic_link_removes_the_link_not_its_target(tmp_path) -> None:
    import os

    root = tmp_path / "proj"
    root.mkdir()
    (root / "data.txt").write_text("keep\n")
    os.symlink("data.txt", root / "alias.txt")
    answer = _patch_answer(tmp_path, root, {"type": "delete_file", "path": "alias.txt"})
    assert (answer["type"], answer["status"], answer["output"]) == (
        "apply_patch_call_output",
        "completed",
        "deleted the link alias.txt",
    )
    assert not os.path.lexists(root / "alias.txt")
    assert (root / "data.txt").read_text() == "keep\n"


def test_apply_patch_create_with_a_diff_that_is_not_text_fails_and_creates_nothing(tmp_path) -> None:
    """The SDK's item type says ``diff`` is text, so no valid vendor answer carries anything else;
    the function is called as the loop calls it, with the operation a hostile answer could hold."""
    from toolwire_openai import confined_apply_patch

    from toolwire.errors import ToolError

    root = tmp_path / "proj"
    root.mkdir()
    function = cast(Any, confined_apply_patch(root).function)
    with pytest.raises(ToolError, match=r"^create_file needs operation.diff as text, got int$"):
        function(operation={"type": "create_file", "path": "new.txt", "diff": 123})
    assert not (root / "new.txt").exists()
    assert function(operation={"type": "create_file", "path": "new.txt", "diff": "+a\n"}).startswith("created new.txt")
