"""The profile framework: preflight in the Model base for every adapter (third-party too)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

import toolwire
from toolwire.adapter import Model, ModelRequest
from toolwire.errors import RequestRefused
from toolwire.profile import PreflightState, Profile, RequestReport, Rule, Violation, preflight, rule_table
from toolwire.stream import StopEvent, TextDelta
from toolwire.tools import Tool
from toolwire.types import Message, Response, TextPart


class _Codec:
    api = "acme"

    def encode_request(self, request: ModelRequest) -> dict[str, Any]:
        return {
            "model": request.model,
            "stream": bool(request.stream),
            "tools": [{"name": t.name, "schema": t.input_schema} for t in request.tools],
            "messages": [
                {"role": m.role, "text": "".join(p.text for p in m.parts if isinstance(p, TextPart))}
                for m in request.messages
            ],
        }


class _AcmeProfile(Profile):
    api = "acme"
    rules = rule_table(
        Rule(
            "acme.tool.no-x", "Tool names may not contain 'x'.", "quoted error: 'tool name may not contain x'", "refuse"
        ),
        Rule("acme.message.upper", "Roles are upper case.", "https://docs.acme.example/roles", "repair"),
    )

    def __init__(self, **settings: Any) -> None:
        super().__init__(**settings)
        self.starts: list[int] = []

    def repair_request(self, body: dict[str, Any], report: RequestReport, *, start: int = 0) -> dict[str, Any]:
        for i, m in enumerate(body["messages"]):
            if m["role"] != m["role"].upper():
                report.add("acme.message.upper", f"/messages/{i}/role", f"role {m['role']!r} upper-cased")
                m["role"] = m["role"].upper()
        return body

    def check_request(self, body: dict[str, Any], *, start: int = 0) -> list[Violation]:
        self.starts.append(start)
        return [
            Violation("acme.tool.no-x", f"/tools/{i}/name", "rename the tool without 'x'", tool=t["name"])
            for i, t in enumerate(body["tools"])
            if "x" in t["name"]
        ]


class AcmeModel(Model):
    """A third-party adapter: it only calls self.prepare; the base runs the preflight."""

    provider = "acme"

    def __init__(self, model_id: str, **settings: Any) -> None:
        super().__init__(model_id, **settings)
        self.codec = _Codec()
        self.sent: list[dict[str, Any]] = []

    @classmethod
    def make_profile(cls, **settings: Any) -> Profile:
        return _AcmeProfile(**settings)

    async def send(self, request: ModelRequest) -> Response:
        body = self.prepare(request)
        self.sent.append(body)
        return Response(parts=[TextPart("ok")], provider="acme")

    async def send_stream(self, request: ModelRequest):  # type: ignore[override]
        body = self.prepare(request)
        self.sent.append(body)
        yield TextDelta(0, "ok")
        yield StopEvent("end_turn", "stop")


class EncodesItself(AcmeModel):
    """An adapter that ignores prepare() and encodes itself still gets the refusal."""

    async def send(self, request: ModelRequest) -> Response:
        self.sent.append(self.codec.encode_request(request))
        return Response(parts=[TextPart("ok")], provider="acme")


def _req(*tools: str, msgs: int = 1) -> ModelRequest:
    return ModelRequest(
        model="m1",
        messages=[Message("user", [TextPart(f"m{i}")]) for i in range(msgs)],
        tools=[Tool(name=n) for n in tools],
    )


def test_refused_before_sending_names_tool_pointer_rule() -> None:
    m = AcmeModel("m1")
    with pytest.raises(RequestRefused) as info:
        asyncio.run(m.send(_req("ok_tool", "box")))
    assert m.sent == []
    err = info.value
    assert err.api == "acme" and err.rules == ["acme.tool.no-x"]
    assert [v.pointer for v in err.violations] == ["/tools/1/name"]
    assert "tool 'box'" in str(err) and "/tools/1/name" in str(err) and "acme.tool.no-x" in str(err)
    assert isinstance(err, toolwire.ToolwireError)


def test_refused_in_stream_before_any_event() -> None:
    m = AcmeModel("m1")

    async def go() -> list[Any]:
        return [ev async for ev in m.send_stream(_req("xx"))]

    with pytest.raises(RequestRefused):
        asyncio.run(go())
    assert m.sent == []


def test_transport_that_encodes_itself_is_still_refused() -> None:
    m = EncodesItself("m1")
    with pytest.raises(RequestRefused):
        asyncio.run(m.send(_req("x")))
    assert m.sent == []


def test_repairs_reach_the_wire_and_the_turn() -> None:
    m = AcmeModel("m1")
    resp = asyncio.run(m.send(_req("tool_a", msgs=2)))
    assert [msg["role"] for msg in m.sent[0]["messages"]] == ["USER", "USER"]
    assert [(c.rule, c.pointer) for c in resp.preflight] == [
        ("acme.message.upper", "/messages/0/role"),
        ("acme.message.upper", "/messages/1/role"),
    ]
    assert m.last_preflight is resp.preflight


def test_one_encode_per_send_and_stream_flag_seen_by_preflight() -> None:
    calls: list[bool] = []

    class Counting(_Codec):
        def encode_request(self, request: ModelRequest) -> dict[str, Any]:
            calls.append(bool(request.stream))
            return super().encode_request(request)

    m = AcmeModel("m1")
    m.codec = Counting()
    asyncio.run(m.send(_req("a")))

    async def go() -> None:
        async for _ in m.send_stream(_req("a")):
            pass

    asyncio.run(go())
    assert calls == [False, True]
    assert m.sent[1]["stream"] is True


@pytest.mark.usefixtures("incremental_from_start")  # (short conversations are checked whole by default)
def test_incremental_check_starts_after_the_checked_history() -> None:
    m = AcmeModel("m1")
    asyncio.run(m.send(_req("a", msgs=1)))
    asyncio.run(m.send(_req("a", msgs=3)))  # same first message, two new ones
    asyncio.run(m.send(ModelRequest(model="m1", messages=[Message("user", [TextPart("edited")])])))
    assert m.profile.starts == [0, 1, 0]


def test_a_conversation_under_the_threshold_is_checked_whole_and_nothing_is_kept() -> None:
    from toolwire.adapter import _Histories

    m = AcmeModel("m1")
    short = _Histories.from_messages - 1
    asyncio.run(m.send(_req("a", msgs=1)))
    asyncio.run(m.send(_req("a", msgs=3)))
    asyncio.run(m.send(_req("a", msgs=short)))
    assert m.profile.starts == [0, 0, 0]
    assert "_preflight_state" not in vars(m)
    # from the threshold on, the model keeps what it checked and checks only the new entries
    asyncio.run(m.send(_req("a", msgs=short + 1)))
    asyncio.run(m.send(_req("a", msgs=short + 3)))
    assert m.profile.starts == [0, 0, 0, 0, short + 1]


def test_preflight_function_and_state() -> None:
    prof = _AcmeProfile()
    state = PreflightState()
    body, report = preflight(prof, {"tools": [], "messages": [{"role": "user"}]}, state=state)
    assert body["messages"][0]["role"] == "USER" and len(report) == 1
    # the stored copy is the history as encoded, before the repair changed it in place
    assert state.start(prof, {"messages": [{"role": "user"}, {"role": "user"}]}) == 1
    assert state.start(prof, {"messages": [{"role": "USER"}, {"role": "user"}]}) == 0


def test_default_profile_is_permissive_and_named() -> None:
    class Bare(Model):
        provider = "bare"

        async def send(self, request: ModelRequest) -> Response:
            return Response()

    p = Bare.make_profile()
    assert p.api == "bare" and dict(p.rules) == {}
    assert p.check_request({"messages": []}) == [] and p.turn_failed("anything") is False
    assert p.tool_name_error("good_name") is None and p.tool_name_error("9bad") is not None
    assert p.estimate_tokens([]) == 0 and p.estimate_tokens([{"name": "get_weather"}]) > 0
    assert asyncio.run(p.count_tokens({})) is None
    # a model without codec (offline providers) sends without preflight
    assert isinstance(asyncio.run(Bare("x").send(_req("x"))), Response)


def test_rule_needs_source_and_valid_action() -> None:
    with pytest.raises(ValueError, match="source"):
        Rule("a.b", "s", "", "refuse")
    with pytest.raises(ValueError, match="action"):
        Rule("a.b", "s", "src", "ignore")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="duplicate"):
        rule_table(Rule("a.b", "s", "src", "refuse"), Rule("a.b", "t", "src", "report"))


@pytest.mark.parametrize("provider", ["anthropic", "openai", "openai-chat", "gemini"])
def test_registry_profile_for_installed_adapters(provider: str) -> None:
    p = toolwire.registry.profile(provider)
    assert isinstance(p, Profile) and p.api == provider


def test_real_adapter_refuses_before_the_sdk_sends(monkeypatch: pytest.MonkeyPatch) -> None:
    httpx2 = pytest.importorskip("httpx2")
    anthropic_adapter = pytest.importorskip("toolwire_anthropic")
    seen: list[Any] = []

    def handler(request: Any) -> Any:
        seen.append(request)
        return httpx2.Response(500)

    class Refuse(Profile):
        api = "anthropic"

        def check_request(self, body: dict[str, Any], *, start: int = 0) -> list[Violation]:
            return [Violation("anthropic.test", "/tools/0/name", "planted", tool=body["tools"][0]["name"])]

    monkeypatch.setattr(anthropic_adapter.AnthropicModel, "make_profile", classmethod(lambda cls, **s: Refuse(**s)))
    m = anthropic_adapter.AnthropicModel(
        "claude-sonnet-4-5",
        api_key="k",
        max_retries=0,
        http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(handler)),
    )
    with pytest.raises(RequestRefused, match="planted"):
        asyncio.run(m.send(_req("get_weather")))
    assert seen == []


def test_profile_whose_repair_takes_no_start_still_works() -> None:
    class Old(Profile):
        api = "old"

        def repair_request(self, body: dict[str, Any], report: Any) -> dict[str, Any]:  # type: ignore[override]
            report.add("old.r", "/x", "set x")
            body["x"] = 1
            return body

    body, report = preflight(Old(), {"messages": []}, state=PreflightState())
    assert body["x"] == 1 and [c.rule for c in report] == ["old.r"]


def test_pricing_and_telemetry_names_per_api() -> None:
    expected = {
        "anthropic": ("anthropic", "anthropic"),
        "openai": ("openai", "openai"),
        "openai-chat": ("openai", "openai"),
        "gemini": ("google", "gcp.gemini"),
    }
    for provider, (pricing, telemetry) in expected.items():
        p = toolwire.registry.profile(provider)
        assert (p.pricing_provider, p.telemetry_provider_name) == (pricing, telemetry)
    assert (Profile().pricing_provider, Profile().telemetry_provider_name) == (None, None)
