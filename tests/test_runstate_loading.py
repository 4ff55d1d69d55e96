"""A hand-edited saved run fails on load with a ValueError naming the place in the JSON, the
field and what it must be; every state toolwire writes itself (from each vendor's recorded
answers, through the SDKs) still loads to the same state."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import toolwire
from toolwire.testing.cassettes import load_cassette, recordings_dir
from toolwire.testing.replay import PROVIDER_FOR_API, _CassetteTransport, _target


def _paused_state() -> dict[str, Any]:
    from toolwire.testing import ScriptedModel, call

    @toolwire.tool
    def add(a: int, b: int) -> int:
        """Add."""
        return a + b

    model = ScriptedModel(
        responses=[
            {
                "text": "adding",
                "tool_calls": [call("add", {"a": 1, "b": 2}, id="c1"), call("add", {"a": 3, "b": 4}, id="c2")],
                "usage": {"input_tokens": 5, "output_tokens": 7},
            }
        ],
    )
    result = toolwire.run_sync(model, "add", tools=[add], approval=lambda c: c.id == "c2")
    return json.loads(result.state.to_json())


def _set(d: Any, path: tuple[Any, ...], value: Any) -> None:
    for key in path[:-1]:
        d = d[key]
    d[path[-1]] = value


@pytest.mark.parametrize(
    ("path", "value", "words"),
    [
        (("usage",), [], "at usage: usage must be an object, got list"),
        (("turns", 0, "response", "usage"), [], "at turns[0].response.usage: usage must be an object, got list"),
        (
            ("turns", 0, "tool_runs", 0, "result", "is_error"),
            "yes",
            "at turns[0].tool_runs[0].result: tool_result part: is_error must be bool, got str 'yes'",
        ),
        (
            ("conversation", "messages", 2, "parts", 0, "is_error"),
            "yes",
            "at conversation.messages[2].parts[0]: tool_result part: is_error must be bool, got str 'yes'",
        ),
        (("version",), 0, "run state: version must be a whole number from 1 to 1"),
        (("version",), -3, "got int -3"),
        (("version",), "1", "got str '1'"),
        (("conversation",), [], "at conversation: the conversation must be an object, got list"),
        (("conversation", "messages", 0), [], "at conversation.messages[0]: a message must be an object, got list"),
        (("conversation", "messages", 0, "parts", 0), "hi", "at conversation.messages[0].parts[0]: a part must be"),
        (("turns", 0, "number"), -1, "at turns[0]: turn: number must be 1 or more"),
        (("turns", 0, "number"), 0, "turn: number must be 1 or more"),
        (("pending", 0, "turn"), 0, "at pending[0]: pending call: turn must be 1 or more"),
        (("turns", 0, "response", "provider_data"), [], "at turns[0].response: provider_data must be an object"),
        (("turns", 0, "tool_runs", 0, "call", "name"), 5, "at turns[0].tool_runs[0].call: tool_call part: name"),
        # a stop reason that is not toolwire's, a provider that is not text, a file of another format
        (
            ("turns", 0, "response", "stop_reason"),
            "finished",
            "at turns[0].response: response: stop_reason must be one of end_turn, tool_use, max_tokens, "
            "stop_sequence, refusal, pause_turn, error (toolwire's stop reasons; the vendor's own value is "
            "vendor_stop_reason), got 'finished'",
        ),
        (
            ("turns", 0, "response", "provider"),
            5,
            "at turns[0].response: response: provider must be str or null, got int 5",
        ),
        (
            ("format",),
            "toolwire.Conversation",
            "run state: format must be 'toolwire.RunState' (what RunState.to_dict writes), "
            "got str 'toolwire.Conversation'",
        ),
        (
            ("format",),
            None,
            "run state: format must be 'toolwire.RunState' (what RunState.to_dict writes), got NoneType None",
        ),
        # a pending call's edited arguments that are not an object loaded as None (the model's ran instead)
        (
            ("pending", 0, "arguments"),
            ["a", 3],
            "at pending[0]: pending call: arguments must be dict or null, got list ['a', 3]",
        ),
        (
            ("pending", 0, "arguments"),
            "{}",
            "at pending[0]: pending call: arguments must be dict or null, got str '{}'",
        ),
        (("pending", 0, "approved"), "yes", "at pending[0]: pending call: approved must be bool, got str 'yes'"),
        # a tool result holds text, image and document parts only: other parts were loaded as their JSON text
        (
            ("turns", 0, "tool_runs", 0, "result", "content"),
            [{"type": "reasoning", "text": "thinking"}],
            "at turns[0].tool_runs[0].result.content[0]: a tool result's content holds text, image and "
            "document parts only, got a 'reasoning' part",
        ),
        (
            ("conversation", "messages", 2, "parts", 0, "content"),
            [{"type": "text", "text": "3"}, {"type": "tool_call", "id": "c9", "name": "add", "arguments": {}}],
            "at conversation.messages[2].parts[0].content[1]: a tool result's content holds text, image and "
            "document parts only, got a 'tool_call' part",
        ),
        (
            ("turns", 0, "tool_runs", 0, "result", "content"),
            {"type": "text", "text": "3"},
            "at turns[0].tool_runs[0].result: tool_result part: content must be str or list, got dict",
        ),
        (
            ("turns", 0, "tool_runs", 0, "result", "content"),
            ["3"],
            "at turns[0].tool_runs[0].result.content[0]: a content part must be an object, got str",
        ),
        (
            ("turns", 0, "tool_runs", 0, "result", "content"),
            [{"type": "image", "data_base64": 5, "media_type": "image/png"}],
            "at turns[0].tool_runs[0].result.content[0]: image part: data_base64 must be base64 text or null, "
            "got int 5",
        ),
        (
            ("turns", 0, "tool_runs", 0, "result", "content"),
            [{"type": "image", "data_base64": "iVBO!!", "media_type": "image/png"}],
            "at turns[0].tool_runs[0].result.content[0]: image part: data_base64 is not base64 text (",
        ),
        # flags that were read by their truth value ("yes" loaded as True)
        (
            ("turns", 0, "tool_runs", 0, "call", "incomplete"),
            "yes",
            "at turns[0].tool_runs[0].call: tool_call part: incomplete must be bool, got str 'yes'",
        ),
        (
            ("turns", 0, "response", "parts", 1, "id_synthesized"),
            1,
            "at turns[0].response.parts[1]: tool_call part: id_synthesized must be bool, got int 1",
        ),
        # a provider tool part's text fields were not checked
        (
            ("turns", 0, "response", "parts", 0),
            {
                "type": "provider_tool",
                "provider": "anthropic",
                "vendor_type": "web_search_tool_result",
                "raw": {},
                "summary": 5,
            },
            "at turns[0].response.parts[0]: provider_tool part: summary must be str, got int",
        ),
        (
            ("turns", 0, "response", "parts", 0),
            {"type": "provider_tool", "provider": "anthropic", "vendor_type": "web_search", "raw": {}, "call_id": 7},
            "at turns[0].response.parts[0]: provider_tool part: call_id must be str or null, got int",
        ),
    ],
)
def test_a_hand_edited_field_fails_on_load_naming_where_and_what(path, value, words):
    saved = _paused_state()
    _set(saved, path, value)
    with pytest.raises(ValueError, match="not a saved toolwire RunState") as info:
        toolwire.RunState.from_json(json.dumps(saved))
    assert words in str(info.value), str(info.value)


def test_a_file_that_is_not_utf8_is_a_value_error_naming_it(tmp_path: Path):
    path = tmp_path / "state.json"
    path.write_bytes(json.dumps(_paused_state()).encode("utf-8").replace(b'"add"', b'"\xff\xfe"', 1))
    with pytest.raises(ValueError) as info:
        toolwire.RunState.load(path)
    assert type(info.value) is ValueError
    assert str(info.value).startswith(f"not a saved toolwire RunState: {str(path)!r} is not UTF-8 text (byte ")


def test_a_hand_edited_file_error_names_the_file(tmp_path: Path):
    saved = _paused_state()
    saved["turns"][0]["number"] = -1
    path = tmp_path / "state.json"
    path.write_text(json.dumps(saved))
    with pytest.raises(ValueError, match=r"turn: number must be 1 or more .*\(file '.*state\.json'\)"):
        toolwire.RunState.load(path)


def test_an_unedited_state_still_loads():
    saved = _paused_state()
    assert json.loads(toolwire.RunState.from_json(json.dumps(saved)).to_json()) == saved


ROOT = recordings_dir()
CASSETTES = sorted(ROOT.glob("*/*.yaml")) if ROOT else []


@pytest.mark.skipif(not CASSETTES, reason="the shared vendor recordings are not beside the clone")
@pytest.mark.parametrize("path", CASSETTES, ids=[f"{p.parent.name}/{p.stem}" for p in CASSETTES])
def test_a_state_saved_from_each_vendors_recorded_answer_loads_the_same(path: Path, tmp_path: Path):
    """The first recorded answer of each cassette, decoded through the vendor's SDK and adapter
    into a one-turn run, saved and loaded: the same state (thinking signatures, provider data,
    usage of every vendor included)."""
    inter = load_cassette(path)[0]
    api = inter.api
    if api is None or not (inter.status or 200) < 400:
        pytest.skip("not a successful answer of a known API")
    transport = _CassetteTransport()
    transport.queue.append(inter)
    model_id, settings = _target(api, inter, transport)
    model = toolwire.model(
        f"{PROVIDER_FOR_API.get(api, api)}:{model_id}", **settings, stream=inter.stream_format is not None
    )
    stream = toolwire.run_stream_sync(model, "hi", max_turns=1)
    try:
        for _ in stream:
            pass
    except toolwire.errors.ToolwireError:
        pass
    finally:
        stream.close()
    state = stream.state
    assert state.turns, "the recorded answer was decoded into a turn"
    file = tmp_path / "state.json"
    state.save(file)
    loaded = toolwire.RunState.load(file)
    assert loaded.to_dict() == state.to_dict()


def test_a_tool_result_with_a_part_other_than_text_or_image_is_refused_not_turned_into_json():
    """``ToolResult.from_dict`` turned a reasoning part (or a tool call) in the content into its
    JSON text, so a hand-edited result told the model something nobody wrote."""
    with pytest.raises(ValueError) as info:
        toolwire.ToolResult.from_dict(
            {"tool_call_id": "c1", "content": [{"type": "text", "text": "ok"}, {"type": "reasoning", "text": "x"}]}
        )
    assert str(info.value) == (
        "at content[1]: a tool result's content holds text, image and document parts only, got a 'reasoning' part"
    )
    loaded = toolwire.ToolResult.from_dict({"tool_call_id": "c1", "content": [{"type": "text", "text": "ok"}]})
    assert loaded.content == [toolwire.TextPart("ok")]


@pytest.mark.parametrize(
    ("load", "words"),
    [
        (toolwire.Conversation.from_dict, "a saved conversation must be an object, got list"),
        (toolwire.Message.from_dict, "a message must be an object, got list"),
        (toolwire.Response.from_dict, "a response must be an object, got list"),
        (toolwire.ToolRun.from_dict, "a tool run must be an object, got list"),
        (toolwire.PendingCall.from_dict, "a pending call must be an object, got list"),
        (toolwire.types.part_from_dict, "a part must be an object, got list"),
    ],
)
def test_a_loader_given_something_that_is_not_an_object_says_so(load: Any, words: str):
    """Called directly with a list, these raised a raw ``AttributeError`` (``'list' object has no
    attribute 'get'``) or ``TypeError`` (``list indices must be integers``)."""
    with pytest.raises(TypeError) as info:
        load(["role", "user"])
    assert str(info.value) == words


def test_a_part_type_that_is_not_text_is_an_unknown_part_type():
    """``{"type": []}`` raised a raw ``TypeError: unhashable type: 'list'``."""
    with pytest.raises(ValueError, match=r"^unknown part type \[\]; expected one of \["):
        toolwire.types.part_from_dict({"type": []})
    with pytest.raises(ValueError, match=r"^not a saved toolwire Conversation: TypeError: a saved conversation must"):
        toolwire.Conversation.from_json("[]")
