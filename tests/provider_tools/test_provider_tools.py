"""Provider tools: declared canonically, encoded in each vendor's wire format, refused (typed,
before any request) where the vendor lacks them; server-side blocks sent back unchanged;
Anthropic's client-side bash and text editor run over confined paths through the real SDK."""

from __future__ import annotations

import asyncio
import json

import pytest

import toolwire
from toolwire import ProviderTool
from toolwire.errors import ProviderToolUnsupported
from toolwire.types import Message


def send(model, messages, **kw):
    return asyncio.run(model.send(model.build_request(messages, **kw)))


def anthropic_answer(content, stop="end_turn"):
    return {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5",
        "content": content,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {
            "input_tokens": 10,
            "output_tokens": 5,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
        },
    }


def test_profiles_list_the_vendor_tools_from_the_sdk_types() -> None:
    a = toolwire.registry.profile("anthropic").provider_tools()
    assert a["web_search_20250305"].name == "web_search" and a["web_search_20250305"].side == "server"
    assert a["bash_20250124"].name == "bash" and a["bash_20250124"].side == "client"
    assert a["text_editor_20250728"].name == "str_replace_based_edit_tool"
    assert a["code_execution_20250825"].source == "anthropic.types.CodeExecutionTool20250825Param"
    assert "web_fetch_20250910" in a and "custom" not in a
    o = toolwire.registry.profile("openai").provider_tools()
    assert {"web_search", "file_search", "code_interpreter"} <= set(o) and "function" not in o
    assert dict(toolwire.registry.profile("openai-chat").provider_tools()) == {}
    g = toolwire.registry.profile("gemini").provider_tools()
    assert {"googleSearch", "codeExecution", "urlContext"} <= set(g) and "functionDeclarations" not in g


def test_declarations_in_each_wire_format(mock) -> None:
    model, sent = mock("anthropic:claude-sonnet-4-5", [anthropic_answer([{"type": "text", "text": "ok"}])])
    send(
        model,
        [Message.user("hi")],
        tools=[
            ProviderTool("anthropic", "web_search_20250305", {"max_uses": 2}),
            ProviderTool("anthropic", "code_execution_20250825"),
        ],
    )
    assert sent[0]["tools"] == [
        {"type": "web_search_20250305", "name": "web_search", "max_uses": 2},
        {"type": "code_execution_20250825", "name": "code_execution"},
    ]
    resp = {
        "id": "resp_1",
        "object": "response",
        "created_at": 1,
        "model": "gpt-4.1",
        "status": "completed",
        "output": [
            {
                "type": "message",
                "id": "msg_1",
                "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": "ok", "annotations": []}],
            }
        ],
        "usage": {
            "input_tokens": 5,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": 1,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": 6,
        },
    }
    model, sent = mock("openai:gpt-4.1", [resp])
    send(
        model,
        [Message.user("hi")],
        tools=[
            ProviderTool("openai", "web_search"),
            ProviderTool("openai", "file_search", {"vector_store_ids": ["vs_1"]}),
        ],
    )
    assert sent[0]["tools"] == [{"type": "web_search"}, {"type": "file_search", "vector_store_ids": ["vs_1"]}]
    gem = {
        "candidates": [{"content": {"role": "model", "parts": [{"text": "ok"}]}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 5, "candidatesTokenCount": 1, "totalTokenCount": 6},
    }

    @toolwire.tool
    def lookup(q: str) -> str:
        """Look a word up. Use it for unknown words.

        Args:
            q: the word
        """
        return q

    # built-in tools with functions: Gemini 3 (Gemini 2.x refuses the mix, see the profile tests)
    model, sent = mock("gemini:gemini-3-flash-preview", [gem])
    send(
        model,
        [Message.user("hi")],
        tools=[
            lookup,
            ProviderTool("gemini", "googleSearch"),
            ProviderTool("gemini", "urlContext"),
            ProviderTool("gemini", "codeExecution"),
        ],
    )
    assert sent[0]["tools"][1:] == [{"googleSearch": {}}, {"urlContext": {}}, {"codeExecution": {}}]
    assert [d["name"] for d in sent[0]["tools"][0]["functionDeclarations"]] == ["lookup"]
    assert sent[0]["toolConfig"] == {"includeServerSideToolInvocations": True}


#: One server-side and (Anthropic) one client-side tool of each vendor.
VENDOR_TOOLS = [
    ("anthropic", "web_search_20250305"),
    ("anthropic", "bash_20250124"),
    ("openai", "web_search"),
    ("openai", "file_search"),
    ("gemini", "googleSearch"),
    ("gemini", "codeExecution"),
]
TARGETS = ["anthropic:claude-sonnet-4-5", "openai:gpt-4.1", "openai-chat:gpt-4.1", "gemini:gemini-2.5-flash"]


@pytest.mark.parametrize(
    "spec,tool",
    [(spec, tool) for tool in VENDOR_TOOLS for spec in TARGETS if spec.partition(":")[0] != tool[0]],
)
def test_a_provider_tool_sent_elsewhere_is_refused_before_the_request(mock, spec, tool) -> None:
    model, sent = mock(spec, [])
    with pytest.raises(ProviderToolUnsupported) as info:
        send(model, [Message.user("hi")], tools=[ProviderTool(*tool)])
    assert sent == []  # nothing reached the network
    err = info.value
    assert (err.provider, err.vendor, err.tool_type) == (spec.partition(":")[0], *tool)
    assert f"exists only on {tool[0]}" in str(err) and "its provider tools:" in str(err)
    # the loop refuses it the same way, before the first request, whatever the other tools
    with pytest.raises(ProviderToolUnsupported):
        toolwire.run_sync(model, "hi", tools=[ProviderTool(*tool)])
    assert sent == []


def test_the_offline_providers_refuse_a_provider_tool_before_the_request() -> None:
    from toolwire.testing import ScriptedModel

    web = ProviderTool("anthropic", "web_search_20250305", {})
    with pytest.raises(ProviderToolUnsupported) as info:
        toolwire.run_sync("test", "hi", tools=[web])
    assert str(info.value) == (
        "the provider tool 'web_search' (anthropic 'web_search_20250305') exists only on anthropic; "
        "test cannot run it (its provider tools: none). Remove it from the tools for test, or declare "
        "that provider's own tool."
    )
    assert (info.value.provider, info.value.vendor, info.value.tool_type) == (
        "test",
        "anthropic",
        "web_search_20250305",
    )
    scripted = ScriptedModel(responses=["never sent"])
    with pytest.raises(ProviderToolUnsupported, match="scripted cannot run it"):
        toolwire.run_sync(scripted, "hi", tools=[ProviderTool("gemini", "googleSearch")])
    assert scripted.requests == [] and scripted.remaining == 1


def test_a_server_side_provider_tool_reaching_the_executor_says_the_vendor_runs_it() -> None:
    web = ProviderTool("anthropic", "web_search_20250305", {})
    with pytest.raises(RuntimeError) as info:
        asyncio.run(web.call({"query": "x"}))
    assert str(info.value) == (
        "tool 'web_search' is anthropic's own tool 'web_search_20250305', run by anthropic itself; "
        "toolwire has no function to run it. Send it only to anthropic, or pass function=... for a "
        "client-side tool."
    )


def test_an_unknown_type_is_refused_when_declared() -> None:
    with pytest.raises(ProviderToolUnsupported, match="anthropic has no provider tool of type 'web_search_1999'"):
        ProviderTool("anthropic", "web_search_1999")


# -- server-side blocks: decoded, kept, sent back unchanged -----------------------------------------------------------

#: Wire blocks written from anthropic.types.ServerToolUseBlock and WebSearchToolResultBlock.
ANTHROPIC_SERVER_BLOCKS = [
    {"type": "server_tool_use", "id": "srvtoolu_01", "name": "web_search", "input": {"query": "toolwire release"}},
    {
        "type": "web_search_tool_result",
        "tool_use_id": "srvtoolu_01",
        "content": [
            {
                "type": "web_search_result",
                "url": "https://example.org/r",
                "title": "Release",
                "encrypted_content": "EqgfCioIARgB",
                "page_age": "2 days ago",
            }
        ],
    },
    {"type": "text", "text": "It was released.", "citations": None},
]


def test_anthropic_server_blocks_round_trip(mock) -> None:
    model, sent = mock(
        "anthropic:claude-sonnet-4-5",
        [anthropic_answer(ANTHROPIC_SERVER_BLOCKS), anthropic_answer([{"type": "text", "text": "ok"}])],
    )
    tools = [ProviderTool("anthropic", "web_search_20250305")]
    r = send(model, [Message.user("When?")], tools=tools)
    assert r.text == "It was released." and r.tool_calls == []
    history = [Message.user("When?"), r.to_message(), Message.user("Thanks")]
    send(model, history, tools=tools)
    assert sent[1]["messages"][1] == {
        "role": "assistant",
        "content": [
            ANTHROPIC_SERVER_BLOCKS[0],
            ANTHROPIC_SERVER_BLOCKS[1],
            {"type": "text", "text": "It was released."},
        ],
    }


#: Output items written from openai.types.responses.ResponseFunctionWebSearch.
OPENAI_WEB_SEARCH_ITEM = {
    "type": "web_search_call",
    "id": "ws_01",
    "status": "completed",
    "action": {"type": "search", "query": "toolwire release"},
}


def test_openai_server_items_round_trip(mock) -> None:
    def answer(output):
        return {
            "id": "resp_1",
            "object": "response",
            "created_at": 1,
            "model": "gpt-4.1",
            "status": "completed",
            "output": output,
            "usage": {
                "input_tokens": 5,
                "input_tokens_details": {"cached_tokens": 0},
                "output_tokens": 1,
                "output_tokens_details": {"reasoning_tokens": 0},
                "total_tokens": 6,
            },
        }

    text = {
        "type": "message",
        "id": "msg_1",
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": "It was released.", "annotations": []}],
    }
    model, sent = mock("openai:gpt-4.1", [answer([OPENAI_WEB_SEARCH_ITEM, text]), answer([text])])
    tools = [ProviderTool("openai", "web_search")]
    r = send(model, [Message.user("When?")], tools=tools)
    assert r.text == "It was released."
    send(model, [Message.user("When?"), r.to_message(), Message.user("Thanks")], tools=tools)
    assert OPENAI_WEB_SEARCH_ITEM in sent[1]["input"]
    assert sent[1]["input"].index(OPENAI_WEB_SEARCH_ITEM) == 1  # where the model produced it


#: Parts written from google.genai.types.ExecutableCode and CodeExecutionResult.
GEMINI_CODE_PARTS = [
    {"executableCode": {"language": "PYTHON", "code": "print(2 + 2)"}},
    {"codeExecutionResult": {"outcome": "OUTCOME_OK", "output": "4\n"}},
    {"text": "It is 4."},
]


def test_gemini_server_parts_round_trip(mock) -> None:
    def answer(parts):
        return {
            "candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}],
            "usageMetadata": {"promptTokenCount": 5, "candidatesTokenCount": 1, "totalTokenCount": 6},
        }

    model, sent = mock("gemini:gemini-2.5-flash", [answer(GEMINI_CODE_PARTS), answer([{"text": "ok"}])])
    tools = [ProviderTool("gemini", "codeExecution")]
    r = send(model, [Message.user("2+2?")], tools=tools)
    assert r.text == "It is 4."
    send(model, [Message.user("2+2?"), r.to_message(), Message.user("Thanks")], tools=tools)
    assert sent[1]["contents"][1] == {"role": "model", "parts": GEMINI_CODE_PARTS}


# -- client-side: bash and the text editor over confined paths, through the real SDK --------------------------------


def test_client_side_bash_and_text_editor_with_confined_paths(mock, tmp_path) -> None:
    from toolwire_anthropic.client_tools import confined_bash, confined_text_editor

    root = tmp_path / "project"
    root.mkdir()
    (tmp_path / "secret.txt").write_text("outside")
    ed = "str_replace_based_edit_tool"

    def use(i, name, inp):
        return anthropic_answer([{"type": "tool_use", "id": f"toolu_0{i}", "name": name, "input": inp}], "tool_use")

    answers = [
        use(1, ed, {"command": "create", "path": "notes.txt", "file_text": "alpha\nbeta\n"}),
        use(2, ed, {"command": "str_replace", "path": "notes.txt", "old_str": "beta", "new_str": "gamma"}),
        use(3, ed, {"command": "view", "path": "../secret.txt"}),
        use(4, "bash", {"command": "python -c \"print(open('notes.txt').read().upper())\""}),
        anthropic_answer([{"type": "text", "text": "done"}]),
    ]
    model, sent = mock("anthropic:claude-sonnet-4-5", answers)
    result = toolwire.run_sync(model, "Write the notes.", tools=[confined_text_editor(root), confined_bash(root)])
    assert result.text == "done"
    assert sent[0]["tools"] == [{"type": "text_editor_20250728", "name": ed}, {"type": "bash_20250124", "name": "bash"}]
    assert (root / "notes.txt").read_text() == "alpha\ngamma\n"
    runs = result.tool_runs
    assert [r.call.name for r in runs] == [ed, ed, ed, "bash"]
    assert [r.result.is_error for r in runs] == [False, False, True, False]
    assert "leaves the root directory" in runs[2].result.text
    assert "ALPHA\nGAMMA" in runs[3].result.text
    # the escape attempt read nothing: its result never carries the outside file's text
    assert all("outside" != r.result.text and "outside\n" not in r.result.text for r in runs)
    last = sent[4]["messages"][-1]["content"][0]
    assert last["type"] == "tool_result" and last["tool_use_id"] == "toolu_04"
    assert json.dumps(sent[3]["messages"][-1]["content"][0]).count("is_error") == 1


def test_confined_bash_and_shell_name_the_allowed_programs_when_refusing_one(tmp_path) -> None:
    from toolwire_anthropic.client_tools import confined_bash
    from toolwire_openai import confined_shell

    from toolwire.errors import ToolError

    bash = confined_bash(tmp_path, allowed_commands=["python", "ls"])
    with pytest.raises(ToolError) as caught:
        bash.function(command="cat notes.txt")
    assert caught.value.message == "program 'cat' is not allowed here; the allowed programs are: python, ls"
    shell = confined_shell(tmp_path, allowed_commands=["python", "ls"])
    stderr = shell.function(action={"commands": ["cat notes.txt"]})["output"][0]["stderr"]
    assert stderr.splitlines()[0] == "program 'cat' is not allowed here; the allowed programs are: python, ls"


@pytest.mark.parametrize(
    "editor_type",
    sorted(t for t in toolwire.registry.profile("anthropic").provider_tools() if t.startswith("text_editor_")),
)
def test_every_text_editor_version_of_the_sdk_runs_confined(mock, tmp_path, editor_type) -> None:
    """Each text editor type the installed SDK lists (its name differs by version: ``str_replace_editor``
    for ``text_editor_20250124``) is declared as the SDK's TypedDict spells it and runs over the root."""
    import typing

    import anthropic.types
    from toolwire_anthropic.client_tools import confined_text_editor

    info = toolwire.registry.profile("anthropic").provider_tools()[editor_type]
    sdk_type = getattr(anthropic.types, info.source.rpartition(".")[2])
    name_literal = typing.get_args(typing.get_type_hints(sdk_type)["name"])[0]
    assert info.name == name_literal
    root = tmp_path / "p"
    root.mkdir()
    (root / "a.txt").write_text("one\ntwo\nthree\n")

    def use(i, inp):
        return anthropic_answer(
            [{"type": "tool_use", "id": f"toolu_{i}", "name": name_literal, "input": inp}], "tool_use"
        )

    answers = [
        use(1, {"command": "view", "path": "a.txt", "view_range": [2, -1]}),
        use(2, {"command": "insert", "path": "a.txt", "insert_line": 0, "insert_text": "zero\n"}),
        use(3, {"command": "view", "path": "/etc/passwd"}),
        anthropic_answer([{"type": "text", "text": "done"}]),
    ]
    model, sent = mock("anthropic:claude-sonnet-4-5", answers)
    result = toolwire.run_sync(model, "Edit.", tools=[confined_text_editor(root, type=editor_type)])
    assert sent[0]["tools"] == [{"type": editor_type, "name": name_literal}]
    runs = result.tool_runs
    assert [r.result.is_error for r in runs] == [False, False, True]
    assert "two" in runs[0].result.text and "three" in runs[0].result.text and "one" not in runs[0].result.text
    assert (root / "a.txt").read_text() == "zero\none\ntwo\nthree\n"
    assert "root:" not in runs[2].result.text  # nothing of /etc/passwd came back


@pytest.mark.parametrize(
    "args, kwargs, says",
    [
        ((None, "web_search"), {}, "vendor must be"),
        (("openai", None), {}, "type must be"),
        (("openai", "web_search", "max_uses=3"), {}, "settings must be a dict"),
        (("openai", "web_search", [("a", 1)]), {}, "settings must be a dict"),
        (("openai", "web_search", {"type": "file_search"}), {}, "may not set 'type'"),
        (("openai", "web_search", {"name": "x"}), {}, "may not set 'name'"),
        (("openai", "web_search", {"when": object()}), {}, "JSON-serialisable"),
        (("openai", "web_search", {"x": float("nan")}), {}, "JSON-serialisable"),
    ],
)
def test_adv12_bad_construction_is_a_configuration_error(args, kwargs, says):
    from toolwire.errors import ConfigurationError

    with pytest.raises(ConfigurationError, match=says):
        toolwire.ProviderTool(*args, **kwargs)


def test_the_offline_client_side_tool_example_in_the_docs_runs(tmp_path, monkeypatch, capsys) -> None:
    """Runs the code block of docs/provider-tools.md "Testing client-side tools offline" as written."""
    from pathlib import Path

    page = (Path(__file__).resolve().parents[2] / "docs" / "provider-tools.md").read_text()
    section = page.split("### Testing client-side tools offline", 1)[1]
    code = section.split("```python\n", 1)[1].split("\n```", 1)[0]
    assert "MockTransport(handler)" in code and "bash.function(" in code
    monkeypatch.chdir(tmp_path)
    exec(compile(code, "provider-tools.md", "exec"), {"__name__": "docs_example"})
    printed = capsys.readouterr().out
    assert printed.count("exit code: 0") == 2
    assert "Python 3." in printed and "--- stdout ---\n2\n" in printed
    assert (tmp_path / "project").is_dir()
