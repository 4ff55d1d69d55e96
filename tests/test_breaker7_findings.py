"""Findings of the adversarial pass over the loop, streams, resume and cost (session 31): each
test failed on the code before its fix.

Streams cut off mid-answer go through the real SDKs over ``httpx2.MockTransport``; the rest
runs the scripted provider (``toolwire.testing``).
"""

from __future__ import annotations

import asyncio
import gc
import json
import threading
import time
from typing import Any

import pytest

import toolwire
from toolwire import Approved, RunState
from toolwire.errors import ConfigurationError, ProviderError, UsageLimitExceeded
from toolwire.pricing import run_cost
from toolwire.testing import ScriptedModel, call
from toolwire.types import Response, TextPart, Usage

httpx2 = pytest.importorskip("httpx2")


def _slow_tool(ran: list[int], seconds: float = 0.15) -> Any:
    @toolwire.tool
    def slow(x: int) -> str:
        """Wait a little, then say done."""
        time.sleep(seconds)
        ran.append(x)
        return f"done {x}"

    return slow


def _echo(x: int) -> str:
    """Echo x."""
    return str(x)


_echo.__name__ = "echo"
ECHO = toolwire.tool(_echo)


# -- a stream left with ``break`` -----------------------------------------------------------------


def test_a_sync_stream_dropped_after_break_is_stopped_as_close_stops_it() -> None:
    ran: list[int] = []

    def leave_early() -> RunState:
        s = toolwire.run_stream_sync(
            ScriptedModel(responses=[[call("slow", {"x": 1})], "done"]), "go", tools=[_slow_tool(ran)]
        )
        for event in s:
            if type(event).__name__ == "ToolStarted":
                break  # no with-block, no close()
        return s.state

    state = leave_early()
    gc.collect()
    assert state.status == "cancelled"
    assert [(p.call.id, p.kind) for p in state.pending] == [("call_1", "interrupted")]


def test_a_state_saved_while_its_tools_ran_resumes_them_instead_of_sending_placeholders() -> None:
    ran: list[int] = []
    slow = _slow_tool(ran)
    s = toolwire.run_stream_sync(
        ScriptedModel(responses=[[call("slow", {"x": 1}), call("slow", {"x": 2})], "done"]), "go", tools=[slow]
    )
    for event in s:
        if type(event).__name__ == "ToolStarted":
            break
    saved = s.state.to_json()  # taken while the run is suspended mid-turn (status "running")
    s.close()
    assert json.loads(saved)["status"] == "running"
    seen: list[Any] = []

    def answer(request: Any) -> Any:
        seen.append([r.content for m in request.messages for r in m.tool_results])
        return "final"

    result = toolwire.run_sync(ScriptedModel(responses=[answer]), resume=RunState.from_json(saved), tools=[slow])
    assert result.text == "final"
    assert seen == [["done 1", "done 2"]]  # the real results, not "Not run: ... before tool 'slow' started"
    assert [r.status for r in result.turns[0].tool_runs] == ["ran", "ran"]


# -- finish() ------------------------------------------------------------------------------------


def test_finish_after_every_event_was_read_returns_the_result() -> None:
    async def main() -> str:
        s = toolwire.run_stream(ScriptedModel(responses=["done"]), "go")
        async for _ in s:
            pass
        return (await s.finish()).text

    assert asyncio.run(main()) == "done"
    s = toolwire.run_stream_sync(ScriptedModel(responses=["done"]), "go")
    list(s)
    assert s.finish().text == "done"


def test_finish_after_a_limit_stop_was_read_raises_the_limit_error() -> None:
    from toolwire.errors import MaxTurnsExceeded

    s = toolwire.run_stream_sync(
        ScriptedModel(responses=[[call("echo", {"x": 1})], [call("echo", {"x": 2})]]),
        "go",
        tools=[ECHO],
        max_turns=1,
    )
    list(s)
    with pytest.raises(MaxTurnsExceeded):
        s.finish()


def test_finish_of_a_stream_closed_early_names_the_state() -> None:
    s = toolwire.run_stream_sync(ScriptedModel(responses=["done"]), "go")
    with s:
        for _ in s:
            break
    assert s.state.status == "cancelled"  # closed at its first event: cancelled, not left "running"
    with pytest.raises(RuntimeError, match="did not finish.*'cancelled'"):
        s.finish()


# -- arguments and saved states --------------------------------------------------------------------


def test_decisions_for_a_run_without_pending_calls_are_refused() -> None:
    done = toolwire.run_sync(ScriptedModel(responses=["a"]), "x")
    with pytest.raises(ConfigurationError, match="not pending.*'zzz'"):
        toolwire.run_sync(ScriptedModel(responses=["a"]), resume=done, decisions={"zzz": Approved()})


def test_a_state_with_pending_calls_but_no_turns_is_a_configuration_error() -> None:
    @toolwire.tool
    def transfer(amount: int) -> str:
        """Move money."""
        return "moved"

    paused = toolwire.run_sync(
        ScriptedModel(responses=[[call("transfer", {"amount": 5})]]), "pay", tools=[transfer], approval={"transfer"}
    )
    state = RunState.from_json(paused.state.to_json())
    assert state.pending
    state.turns.clear()
    with pytest.raises(ConfigurationError):
        toolwire.run_sync(
            ScriptedModel(responses=["ok"]),
            resume=state,
            tools=[transfer],
            approval={"transfer"},
            decisions={"call_1": Approved()},
        )


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"limits": {"bogus": 1}}, "limits has no field 'bogus'"),
        ({"on_turn": 5}, "on_turn must be a function"),
        ({"tools": 5}, "tools must be a list"),
    ],
)
def test_bad_run_arguments_are_configuration_errors_before_anything_runs(kwargs: dict, words: str) -> None:
    ran = threading.Event()

    def answer(request: Any) -> str:
        ran.set()
        return "a"

    with pytest.raises((ConfigurationError, toolwire.errors.ToolDefinitionError), match=words):
        toolwire.run_sync(ScriptedModel(responses=[answer]), "x", **kwargs)
    assert not ran.is_set()


def test_one_tool_given_without_a_list_is_taken() -> None:
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    result = toolwire.run_sync(ScriptedModel(responses=[[call("add", {"a": 2, "b": 3})], "5"]), "sum", tools=add)
    assert [r.result.content for r in result.state.tool_runs] == ["5"]


# -- cost of a tool result when the vendor gave no input count -----------------------------------------


def test_tool_cost_is_unknown_not_zero_when_input_counts_are_missing() -> None:
    result = toolwire.run_sync(
        ScriptedModel(
            responses=[
                Response([call("echo", {"x": 1})], "tool_use", usage=Usage(None, None, requests=1)),
                Response([TextPart("ok")], "end_turn", usage=Usage(100, 5, requests=1)),
            ],
            name="anthropic:claude-sonnet-4-5",
        ),
        "go",
        tools=[ECHO],
    )
    (tc,) = run_cost(result).tool_calls
    assert (tc.tokens, tc.usd) == (None, None)


# -- a stream cut off mid-answer ----------------------------------------------------------------------


def _sse(events: list[tuple[str | None, dict]]) -> str:
    return "".join((f"event: {n}\n" if n else "") + f"data: {json.dumps(d)}\n\n" for n, d in events)


CUT = {
    "anthropic": (
        "claude-sonnet-4-5",
        _sse(
            [
                (
                    "message_start",
                    {
                        "type": "message_start",
                        "message": {
                            "id": "m",
                            "type": "message",
                            "role": "assistant",
                            "model": "claude-sonnet-4-5",
                            "content": [],
                            "stop_reason": None,
                            "usage": {"input_tokens": 5, "output_tokens": 1},
                        },
                    },
                ),
                (
                    "content_block_start",
                    {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
                ),
                (
                    "content_block_delta",
                    {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "hel"}},
                ),
            ]
        ),
    ),
    "openai-chat": (
        "gpt-4.1",
        _sse(
            [
                (
                    None,
                    {
                        "id": "c",
                        "object": "chat.completion.chunk",
                        "created": 1,
                        "model": "gpt-4.1",
                        "choices": [
                            {"index": 0, "delta": {"role": "assistant", "content": "hel"}, "finish_reason": None}
                        ],
                    },
                )
            ]
        ),
    ),
    "openai": (
        "gpt-4.1",
        _sse(
            [
                (
                    "response.created",
                    {
                        "type": "response.created",
                        "sequence_number": 0,
                        "response": {
                            "id": "r",
                            "object": "response",
                            "created_at": 1,
                            "status": "in_progress",
                            "model": "gpt-4.1",
                            "output": [],
                        },
                    },
                ),
                (
                    "response.output_item.added",
                    {
                        "type": "response.output_item.added",
                        "sequence_number": 1,
                        "output_index": 0,
                        "item": {
                            "id": "msg_1",
                            "type": "message",
                            "role": "assistant",
                            "status": "in_progress",
                            "content": [],
                        },
                    },
                ),
                (
                    "response.output_text.delta",
                    {
                        "type": "response.output_text.delta",
                        "sequence_number": 2,
                        "item_id": "msg_1",
                        "output_index": 0,
                        "content_index": 0,
                        "delta": "hel",
                    },
                ),
            ]
        ),
    ),
    "gemini": (
        "gemini-2.5-flash",
        _sse([(None, {"candidates": [{"content": {"role": "model", "parts": [{"text": "hel"}]}, "index": 0}]})]),
    ),
}


@pytest.mark.parametrize("api", sorted(CUT))
def test_a_stream_cut_off_mid_answer_raises_and_keeps_the_partial_text(api: str) -> None:
    model_id, body = CUT[api]
    posts: list[int] = []

    def handler(request: Any) -> Any:
        posts.append(1)
        return httpx2.Response(200, headers={"content-type": "text/event-stream"}, text=body)

    m = toolwire.model(
        f"{api}:{model_id}",
        api_key="k",
        http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(handler)),
        stream=True,
        max_retries=0,
    )
    with pytest.raises(ProviderError, match="ended before the response was complete") as info:
        toolwire.run_sync(m, "hi")
    assert info.value.retryable
    state = info.value.run_state
    assert state.status == "failed"
    assert state.turns[-1].response.text == "hel"  # what arrived is kept in the turn record
    # Model.send (no events seen by anyone) retries the whole request, then raises the same error
    posts.clear()
    m2 = toolwire.model(
        f"{api}:{model_id}",
        api_key="k",
        http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(handler)),
        stream=True,
        retry={"max_attempts": 2, "initial_delay": 0.0, "max_delay": 0.0},
    )
    from toolwire.types import Message

    with pytest.raises(ProviderError, match="ended before"):
        asyncio.run(m2.send(m2.build_request([Message.user("hi")])))
    assert len(posts) == 2


# -- token limits the vendor's usage cannot check ------------------------------------------------------


@pytest.mark.parametrize(
    ("limit", "usage", "words"),
    [
        ({"max_total_tokens": 1}, None, "max_total_tokens=1 cannot be checked"),
        ({"max_input_tokens": 10_000}, {"completion_tokens": 5}, "no input token count"),
        ({"max_output_tokens": 10_000}, {"prompt_tokens": 5}, "no output token count"),
    ],
)
def test_a_token_limit_without_the_counts_to_check_it_stops_the_run(limit: dict, usage: Any, words: str) -> None:
    from toolwire.errors import UsageLimitExceeded

    def chat(message: dict, finish: str, usage: Any) -> dict:
        out = {
            "id": "c1",
            "object": "chat.completion",
            "created": 1,
            "model": "local",
            "choices": [{"index": 0, "message": {"role": "assistant", **message}, "finish_reason": finish}],
        }
        if usage is not None:
            out["usage"] = usage
        return out

    call_ = {"id": "call_1", "type": "function", "function": {"name": "echo", "arguments": '{"x": 1}'}}
    m, sent = _recording_model(
        "openai-chat:local",
        [chat({"content": None, "tool_calls": [call_]}, "tool_calls", usage), chat({"content": "ok"}, "stop", usage)],
        base_url="http://localhost:8080/v1",
    )
    ran: list[int] = []
    with pytest.raises(UsageLimitExceeded, match=words) as info:
        toolwire.run_sync(
            m, "go", tools=[ECHO], limits=toolwire.Limits(**limit), before_tool_call=lambda c: ran.append(1)
        )
    assert ran == [] and len(sent) == 1  # the call was answered as not run; nothing more was asked
    assert info.value.result.tool_runs[0].status == "limit"
    assert "have it report usage" in str(info.value)


@pytest.mark.parametrize(
    ("make", "advice"),
    [
        (lambda: ScriptedModel(responses=[[call("echo", {"x": 1})], "ok"]), "the scripted answer carries no usage"),
        (lambda: toolwire.model("scripted", responses=[[call("echo", {"x": 1})], "ok"]), "give it one"),
        (lambda: toolwire.model("test"), "the 'test' provider counts no tokens"),
    ],
)
def test_offline_providers_without_usage_are_held_to_token_limits_as_a_vendor_is(make: Any, advice: str) -> None:
    """docs/loop.md: a response with no token count stops a run with a token limit set, and an
    unknown count is never taken as 0. The offline providers were exempt (the run went on), so an
    offline test of limit handling passed where production (a MockTransport on openai-chat, a
    server without usage) stops; now they stop the same way and say how to give them usage."""
    ran: list[int] = []
    with pytest.raises(UsageLimitExceeded, match="max_total_tokens=10 cannot be checked") as info:
        toolwire.run_sync(
            make(),
            "go",
            tools=[ECHO],
            limits=toolwire.Limits(max_total_tokens=10),
            before_tool_call=lambda c: ran.append(1),
        )
    assert advice in str(info.value)
    assert ran == []  # the call was answered as not run, as on a vendor
    assert info.value.result.tool_runs[0].status == "limit"


def test_an_offline_final_answer_without_usage_is_returned_as_a_vendors_is() -> None:
    # a response that already is the final answer is returned even when a limit stops the run
    result = toolwire.run_sync(
        ScriptedModel(responses=["ok"]), "go", tools=[ECHO], limits=toolwire.Limits(max_total_tokens=10)
    )
    assert result.text == "ok" and result.usage.total_tokens == 0 and result.usage.input_tokens is None


def test_a_token_limit_with_counts_runs_as_before() -> None:
    result = toolwire.run_sync(
        ScriptedModel(
            responses=[
                Response([call("echo", {"x": 1})], "tool_use", usage=Usage(10, 5, requests=1)),
                Response([TextPart("ok")], "end_turn", usage=Usage(20, 5, requests=1)),
            ]
        ),
        "go",
        tools=[ECHO],
        limits=toolwire.Limits(max_total_tokens=1000),
    )
    assert result.text == "ok" and result.usage.total_tokens == 40


# -- run store ids ---------------------------------------------------------------------------------------


def test_a_new_run_with_a_stored_run_id_is_refused_and_the_stored_run_kept(tmp_path: Any) -> None:
    from toolwire.store import RunStore, RunStoreError

    store = RunStore(tmp_path / "runs.db")
    first = asyncio.run(
        store.run(ScriptedModel(responses=[[call("echo", {"x": 1})], "first"]), "a", tools=[ECHO], run_id="fix-1")
    )
    with pytest.raises(RunStoreError, match="already stored") as info:
        asyncio.run(store.run(ScriptedModel(responses=["second"]), "b", tools=[ECHO], run_id="fix-1"))
    assert info.value.reason == "exists"
    kept = store.load_state("fix-1")
    assert len(kept.turns) == 2 and kept.turns[-1].response.text == first.text == "first"
    # resuming it is still fine, and so is a new id
    asyncio.run(store.resume("fix-1", ScriptedModel(responses=["more"]), tools=[ECHO]))
    asyncio.run(store.run(ScriptedModel(responses=["other"]), "c", run_id="fix-2"))


def test_a_run_id_that_is_not_utf8_text_is_a_configuration_error() -> None:
    with pytest.raises(ConfigurationError, match="run_id must be"):
        toolwire.run_sync(ScriptedModel(responses=["a"]), "x", run_id="\udcff")


# -- structured tool results are strict JSON ---------------------------------------------------------


def test_structured_results_are_strict_json() -> None:
    import dataclasses

    @dataclasses.dataclass
    class Point:
        x: float
        tags: set

    def measure(kind: str) -> Any:
        """Measure something."""
        return {
            "nan": {"a": float("nan"), "b": float("inf"), "c": -float("inf"), "d": 1.5},
            "point": Point(1.0, {"b", "a"}),
            "tuple_key": {(1, 2): 3},
            "set": {3, 1, 2},
        }[kind]

    calls = [call("measure", {"kind": k}, id=f"c_{k}") for k in ("nan", "point", "tuple_key", "set")]
    result = toolwire.run_sync(ScriptedModel(responses=[calls, "ok"]), "go", tools=[measure])
    texts = [r.result.content for r in result.state.tool_runs]
    assert [json.loads(t) for t in texts] == [
        {"a": "NaN", "b": "Infinity", "c": "-Infinity", "d": 1.5},
        {"x": 1.0, "tags": ["a", "b"]},
        {"(1, 2)": 3},
        [1, 2, 3],
    ]
    for t in texts:  # strict JSON: no NaN / Infinity literals
        json.loads(t, parse_constant=lambda c: pytest.fail(f"non-JSON constant {c} in {t}"))


def test_a_second_approval_through_the_run_store_is_refused_not_run_twice(tmp_path: Any) -> None:
    from toolwire.store import RunStore

    moved: list[int] = []

    @toolwire.tool
    def transfer(amount: int) -> str:
        """Move money."""
        moved.append(amount)
        return "moved"

    store = RunStore(tmp_path / "runs.db")
    paused = asyncio.run(
        store.run(
            ScriptedModel(responses=[[call("transfer", {"amount": 5})], "sent"]),
            "pay",
            tools=[transfer],
            approval={"transfer"},
            run_id="pay-1",
        )
    )
    assert [p.call.id for p in paused.pending] == ["call_1"]
    again = dict(tools=[transfer], approval={"transfer"}, decisions={"call_1": Approved()})
    asyncio.run(store.resume("pay-1", ScriptedModel(responses=["sent"]), **again))
    with pytest.raises(ConfigurationError, match="not pending"):
        asyncio.run(store.resume("pay-1", ScriptedModel(responses=["sent"]), **again))
    assert moved == [5]


# -- what a response carries into the next request (found by a helper session) -----------------------


def _recording_model(spec: str, answers: list[dict], **settings: Any) -> tuple[Any, list[dict]]:
    sent: list[dict] = []

    def handler(request: Any) -> Any:
        sent.append(json.loads(request.content))
        return httpx2.Response(200, json=answers[len(sent) - 1])

    m = toolwire.model(
        spec,
        api_key="k",
        max_retries=0,
        http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(handler)),
        **settings,
    )
    return m, sent


def _weather(city: str) -> str:
    """Weather for a city."""
    return f"sunny in {city}"


_weather.__name__ = "get_weather"
WEATHER = toolwire.tool(_weather)


def test_anthropic_programmatic_tool_calls_send_the_container_back() -> None:
    from toolwire.tools import ProviderTool

    def msg(content: list, stop: str, container: bool = True) -> dict:
        out = {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4-5",
            "content": content,
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": {"input_tokens": 20, "output_tokens": 10},
        }
        if container:
            out["container"] = {"id": "container_011CQ", "expires_at": "2026-01-01T00:00:00Z"}
        return out

    code = {"type": "server_tool_use", "id": "srvtoolu_1", "name": "code_execution", "input": {"code": "x"}}
    call_by_code = {
        "type": "tool_use",
        "id": "toolu_1",
        "name": "get_weather",
        "input": {"city": "Paris"},
        "caller": {"type": "code_execution_20250825", "tool_id": "srvtoolu_1"},
    }
    m, sent = _recording_model(
        "anthropic:claude-sonnet-4-5",
        [msg([code, call_by_code], "tool_use"), msg([{"type": "text", "text": "Sunny."}], "end_turn")],
    )
    result = toolwire.run_sync(m, "Weather?", tools=[ProviderTool("anthropic", "code_execution_20250825", {}), WEATHER])
    assert result.text == "Sunny."
    assert "container" not in sent[0] and sent[1]["container"] == "container_011CQ"
    # an ordinary tool call (no caller) does not pin the container
    plain = {k: v for k, v in call_by_code.items() if k != "caller"}
    m, sent = _recording_model(
        "anthropic:claude-sonnet-4-5", [msg([plain], "tool_use"), msg([{"type": "text", "text": "ok"}], "end_turn")]
    )
    toolwire.run_sync(m, "Weather?", tools=[WEATHER])
    assert "container" not in sent[1]


def test_responses_with_a_server_conversation_sends_only_the_new_items() -> None:
    def resp(output: list) -> dict:
        return {
            "id": "resp_1",
            "object": "response",
            "created_at": 1,
            "status": "completed",
            "model": "gpt-5",
            "output": output,
            "parallel_tool_calls": True,
            "tool_choice": "auto",
            "tools": [],
            "conversation": {"id": "conv_123"},
            "usage": {"input_tokens": 1, "output_tokens": 1, "total_tokens": 2},
        }

    m, sent = _recording_model(
        "openai:gpt-5",
        [
            resp(
                [
                    {"id": "rs_1", "type": "reasoning", "summary": [], "encrypted_content": "ENC"},
                    {
                        "id": "fc_1",
                        "type": "function_call",
                        "status": "completed",
                        "call_id": "call_1",
                        "name": "get_weather",
                        "arguments": '{"city":"Paris"}',
                    },
                ]
            ),
            resp(
                [
                    {
                        "id": "msg_2",
                        "type": "message",
                        "role": "assistant",
                        "status": "completed",
                        "content": [{"type": "output_text", "text": "done", "annotations": []}],
                    }
                ]
            ),
        ],
        conversation="conv_123",
    )
    result = toolwire.run_sync(m, "Weather?", tools=[WEATHER])
    assert result.text == "done"
    assert [i.get("role") or i.get("type") for i in sent[0]["input"]] == ["user"]
    assert [i.get("type") for i in sent[1]["input"]] == ["function_call_output"]  # rs_1/fc_1 live on the server
    assert sent[1]["conversation"] == "conv_123"


@pytest.mark.parametrize("field", ["reasoning_content", "reasoning"])
def test_chat_reasoning_content_goes_back_on_tool_call_turns(field: str) -> None:
    def chat(message: dict, finish: str) -> dict:
        return {
            "id": "c1",
            "object": "chat.completion",
            "created": 1,
            "model": "deepseek-reasoner",
            "choices": [{"index": 0, "message": {"role": "assistant", **message}, "finish_reason": finish}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        }

    call_ = {
        "id": "call_00_abc",
        "type": "function",
        "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'},
    }
    # DeepSeek sends reasoning_content; "reasoning" is another server's field (OpenRouter's), so
    # that case goes to another server: DeepSeek's thinking mode would refuse a tool-call turn
    # without reasoning_content before sending (rule openai-chat.server.deepseek-reasoning-content)
    m, sent = _recording_model(
        "openai-chat:deepseek-reasoner",
        [
            chat({"content": "", field: "Need the weather tool.", "tool_calls": [call_]}, "tool_calls"),
            chat({"content": "done", field: "ok"}, "stop"),
        ],
        base_url="https://api.deepseek.com" if field == "reasoning_content" else "https://openrouter.ai/api/v1",
    )
    toolwire.run_sync(m, "Weather?", tools=[WEATHER])
    assistant = sent[1]["messages"][1]
    if field == "reasoning_content":  # DeepSeek's field: required back on a tool-call turn
        assert assistant["reasoning_content"] == "Need the weather tool."
    else:  # another server's "reasoning" is not sent back (not every server takes it)
        assert "reasoning" not in assistant and "reasoning_content" not in assistant


def test_an_approval_policy_that_raises_fails_closed_and_the_run_keeps_going() -> None:
    ran: list[str] = []

    @toolwire.tool
    def balance() -> str:
        """Read the balance."""
        ran.append("balance")
        return "100"

    @toolwire.tool
    def transfer(amount: int) -> str:
        """Move money."""
        ran.append("transfer")
        return "moved"

    result = toolwire.run_sync(
        ScriptedModel(responses=[[call("balance", {}, id="c1"), call("transfer", {"amount": 500}, id="c2")], "ok"]),
        "pay",
        tools=[balance, transfer],
        approval=lambda c: c.arguments["amount"] > 100 and "more than 100",  # KeyError for balance()
    )
    assert result.stop_reason == "pending" and ran == []
    reasons = {p.call.id: p.reason for p in result.pending}
    assert reasons["c1"].startswith("the approval policy raised KeyError") and reasons["c2"] == "more than 100"


def test_chat_audio_answers_keep_their_transcript_and_send_the_audio_id_back() -> None:
    def chat(message: dict, finish: str) -> dict:
        return {
            "id": "c1",
            "object": "chat.completion",
            "created": 1,
            "model": "gpt-4o-audio-preview",
            "choices": [{"index": 0, "message": {"role": "assistant", **message}, "finish_reason": finish}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        }

    call_ = {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'}}
    for expires, kept in ((int(time.time()) + 3600, True), (1, False)):

        def audio(audio_id: str, transcript: str, expires: int = expires) -> dict:
            return {"id": audio_id, "data": "UklGRg==", "expires_at": expires, "transcript": transcript}

        m, sent = _recording_model(
            "openai-chat:gpt-4o-audio-preview",
            [
                chat(
                    {"content": None, "audio": audio("audio_abc", "Let me check."), "tool_calls": [call_]}, "tool_calls"
                ),
                chat({"content": None, "audio": audio("audio_def", "It is sunny in Paris.")}, "stop"),
            ],
            modalities=["text", "audio"],
            audio={"voice": "alloy", "format": "wav"},
        )
        result = toolwire.run_sync(m, "Weather?", tools=[WEATHER])
        assert result.text == "It is sunny in Paris."  # the transcript is the answer's text
        assistant = sent[1]["messages"][1]
        if kept:  # still on the server: referred to by its id
            assert assistant["audio"] == {"id": "audio_abc"} and assistant["content"] is None
        else:  # expired: what was said goes back as text
            assert "audio" not in assistant and assistant["content"] == "Let me check."


def test_a_chat_stream_ended_by_done_without_a_finish_reason_is_complete() -> None:
    def sse(chunks: list[dict], done: bool) -> str:
        return "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + ("data: [DONE]\n\n" if done else "")

    base = {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "local"}
    chunks = [
        {**base, "choices": [{"index": 0, "delta": {"content": "Hi"}, "finish_reason": None}]},
        {**base, "choices": [{"index": 0, "delta": {"content": " there"}, "finish_reason": None}]},
    ]
    for done in (True, False):

        def handler(request: Any, done: bool = done) -> Any:
            return httpx2.Response(200, headers={"content-type": "text/event-stream"}, text=sse(chunks, done))

        m = toolwire.model(
            "openai-chat:local",
            api_key="k",
            base_url="http://localhost:8080/v1",
            stream=True,
            max_retries=0,
            http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(handler)),
        )
        if done:
            assert toolwire.run_sync(m, "hi").text == "Hi there"
        else:
            with pytest.raises(ProviderError, match="ended before"):
                toolwire.run_sync(m, "hi")


def test_chat_reasoning_content_goes_back_only_to_the_server_that_sent_it() -> None:
    def chat(message: dict, finish: str) -> dict:
        return {
            "id": "c1",
            "object": "chat.completion",
            "created": 1,
            "model": "m",
            "choices": [{"index": 0, "message": {"role": "assistant", **message}, "finish_reason": finish}],
        }

    call_ = {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'}}
    deepseek, _ = _recording_model(
        "openai-chat:deepseek-reasoner",
        [
            chat({"content": "", "reasoning_content": "think", "tool_calls": [call_]}, "tool_calls"),
            chat({"content": "a"}, "stop"),
        ],
        base_url="https://api.deepseek.com",
    )
    first = toolwire.run_sync(deepseek, "Weather?", tools=[WEATHER])
    groq, sent = _recording_model(
        "openai-chat:openai/gpt-oss-120b", [chat({"content": "b"}, "stop")], base_url="https://api.groq.com/openai/v1"
    )
    toolwire.run_sync(groq, "And tomorrow?", conversation=first.conversation, tools=[WEATHER])
    assert all("reasoning_content" not in m for m in sent[0]["messages"])


def test_responses_conversation_sends_the_history_of_other_conversations() -> None:
    def resp(text: str, conversation: str | None) -> dict:
        out = {
            "id": f"resp_{text}",
            "object": "response",
            "created_at": 1,
            "status": "completed",
            "model": "gpt-5",
            "output": [
                {
                    "id": f"msg_{text}",
                    "type": "message",
                    "role": "assistant",
                    "status": "completed",
                    "content": [{"type": "output_text", "text": text, "annotations": []}],
                }
            ],
        }
        if conversation:
            out["conversation"] = {"id": conversation}
        return out

    m, _ = _recording_model("openai:gpt-5", [resp("hello Ada", None)])
    first = toolwire.run_sync(m, "My name is Ada.")
    m, sent = _recording_model(
        "openai:gpt-5", [resp("Ada", "conv_new"), resp("yes", "conv_new")], conversation="conv_new"
    )
    second = toolwire.run_sync(m, "What is my name?", conversation=first.conversation)
    # a stateless history moved into a new server conversation: sent whole (the conversation holds none of it)
    assert [i.get("role") for i in sent[0]["input"]] == ["user", "assistant", "user"]
    toolwire.run_sync(m, "Sure?", conversation=second.conversation)
    assert [i.get("role") for i in sent[1]["input"]] == ["user"]  # after conv_new's own answer


# -- OpenAI-compatible servers (found by a helper session) ------------------------------------------


def _local(handler: Any, **settings: Any) -> Any:
    return toolwire.model(
        "openai-chat:local",
        api_key="k",
        base_url="http://localhost:8080/v1",
        max_retries=0,
        http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(handler)),
        **settings,
    )


def _chunk(delta: dict, finish: str | None = None) -> str:
    body = {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "local"}
    body["choices"] = [{"index": 0, "delta": delta, "finish_reason": finish}]
    return "data: " + json.dumps(body) + "\n\n"


def test_an_old_llama_cpp_error_line_mid_stream_raises() -> None:
    body = (
        _chunk({"content": "The weather"})
        + 'error: {"code":500,"message":"boom","type":"server_error"}\n\ndata: [DONE]\n\n'
    )
    m = _local(lambda r: httpx2.Response(200, headers={"content-type": "text/event-stream"}, text=body), stream=True)
    with pytest.raises(ProviderError, match="boom"):
        toolwire.run_sync(m, "hi")


def test_finish_reasons_of_compatible_servers_that_mean_an_error_or_a_cut() -> None:
    def answer(finish: str, extra: dict | None = None) -> dict:
        choice = {
            "index": 0,
            "message": {"role": "assistant", "content": "The weather in Par"},
            "finish_reason": finish,
        }
        choice.update(extra or {})
        return {"id": "c", "object": "chat.completion", "created": 1, "model": "local", "choices": [choice]}

    m = _local(
        lambda r: httpx2.Response(
            200, json=answer("error", {"error": {"code": 502, "message": "Provider returned error"}})
        )
    )
    with pytest.raises(ProviderError, match="Provider returned error") as info:
        toolwire.run_sync(m, "hi")
    assert info.value.status == 502 and info.value.retryable
    assert (
        toolwire.run_sync(_local(lambda r: httpx2.Response(200, json=answer("model_length"))), "hi").stop_reason
        == "max_tokens"
    )
    result = toolwire.run_sync(
        _local(lambda r: httpx2.Response(200, json=answer("insufficient_system_resource"))), "hi"
    )
    assert result.stop_reason == "error"


def test_mistral_thinking_content_parts_stream_and_decode() -> None:
    parts = [
        {"type": "thinking", "thinking": [{"type": "text", "text": "Let me think."}]},
        {"type": "text", "text": "Hi"},
    ]
    body = _chunk({"content": parts}) + _chunk({"content": " there"}, "stop") + "data: [DONE]\n\n"
    m = _local(lambda r: httpx2.Response(200, headers={"content-type": "text/event-stream"}, text=body), stream=True)
    result = toolwire.run_sync(m, "hi")
    assert result.text == "Hi there"
    assert [p.text for p in result.turns[0].response.parts if type(p).__name__ == "ReasoningPart"] == ["Let me think."]


def test_tool_results_of_several_text_parts_go_as_one_string() -> None:
    from toolwire.types import TextPart as TP

    @toolwire.tool
    def search(q: str) -> Any:
        """Search."""
        return [TP("hit 1"), TP("hit 2")]

    calls = {"id": "call_1", "type": "function", "function": {"name": "search", "arguments": '{"q": "x"}'}}
    answers = [
        {
            "id": "c",
            "object": "chat.completion",
            "created": 1,
            "model": "local",
            "choices": [
                {"index": 0, "message": {"role": "assistant", "tool_calls": [calls]}, "finish_reason": "tool_calls"}
            ],
        },
        {
            "id": "c",
            "object": "chat.completion",
            "created": 1,
            "model": "local",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}],
        },
    ]
    sent: list[dict] = []

    def handler(r: Any) -> Any:
        sent.append(json.loads(r.content))
        return httpx2.Response(200, json=answers[len(sent) - 1])

    toolwire.run_sync(_local(handler), "go", tools=[search])
    assert sent[1]["messages"][2] == {"role": "tool", "tool_call_id": "call_1", "content": "hit 1\nhit 2"}


def test_tool_calls_finish_without_calls_is_not_tool_use_and_stream_options_none_is_not_sent() -> None:
    answer = {
        "id": "c",
        "object": "chat.completion",
        "created": 1,
        "model": "local",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": "no", "tool_calls": []},
                "finish_reason": "tool_calls",
            }
        ],
    }
    assert toolwire.run_sync(_local(lambda r: httpx2.Response(200, json=answer)), "hi").stop_reason == "end_turn"
    m = _local(lambda r: None, stream=True, stream_options=None)
    body = m.prepare(m.build_request([toolwire.Message.user("hi")]))
    assert "stream_options" not in body and body["stream"] is True


def test_gemini_keeps_safety_and_citation_details_and_reads_one_candidate() -> None:
    cand = {
        "content": {"role": "model", "parts": [{"text": "partial"}]},
        "finishReason": "RECITATION",
        "index": 0,
        "safetyRatings": [{"category": "HARM_CATEGORY_X", "probability": "LOW"}],
        "citationMetadata": {"citationSources": [{"uri": "https://example.com"}]},
    }
    m, _ = _recording_model("gemini:gemini-2.5-flash", [{"candidates": [cand]}])
    pd = toolwire.run_sync(m, "hi").turns[0].response.provider_data["gemini"]
    assert pd["safetyRatings"][0]["category"] == "HARM_CATEGORY_X"
    assert pd["citationMetadata"]["citationSources"][0]["uri"] == "https://example.com"
    # two candidates in one answer: the first one's text only
    two = [
        {"content": {"role": "model", "parts": [{"text": "A"}]}, "finishReason": "STOP", "index": 0},
        {"content": {"role": "model", "parts": [{"text": "B"}]}, "finishReason": "STOP", "index": 1},
    ]
    m, _ = _recording_model("gemini:gemini-2.5-flash", [{"candidates": two}])
    assert toolwire.run_sync(m, "hi").text == "A"


def test_a_thinking_setting_that_is_not_a_dict_is_a_configuration_error() -> None:
    for value in (True, "low", 2048):
        with pytest.raises(ConfigurationError, match="thinking"):
            toolwire.model("gemini:gemini-2.5-flash", api_key="k", thinking=value)


def test_gemini_count_tokens_counts_the_body_send_would_post() -> None:
    sent: list[dict] = []

    def handler(request: Any) -> Any:
        sent.append(json.loads(request.content))
        return httpx2.Response(200, json={"totalTokens": 7})

    m = toolwire.model(
        "gemini:gemma-3-27b-it", api_key="k", http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(handler))
    )
    request = m.build_request([toolwire.Message.user("hi")], instructions="be brief")
    assert asyncio.run(m.count_tokens(request)) == 7
    counted = sent[0]["generateContentRequest"]
    # Gemma 3 takes no system instruction: the preflight sends it as the first user text, and so does the count
    assert "systemInstruction" not in counted
    assert counted["contents"] == m.prepare(request)["contents"]
