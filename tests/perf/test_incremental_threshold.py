"""With the default settings a conversation is encoded whole until it reaches
``_Histories.from_messages`` messages, then incrementally (the earlier entries kept, only the new
messages encoded). Whichever way a request is encoded, the bytes posted are those of the body
encoded whole by a fresh model.

No timing here: the threshold's benefit is measured in ``benchmarks/suite.py``. These tests
check the switch itself: nothing is kept below the threshold, the history is kept from the first
request at or past it, and the posted bytes never change.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import sys
from pathlib import Path
from typing import Any

import pytest

import toolwire
from toolwire.adapter import ModelRequest, _Histories

httpx2 = pytest.importorskip("httpx2")

APIS = {
    "anthropic": ("toolwire_anthropic", "claude-sonnet-4-5", True),
    "openai-chat": ("toolwire_openai", "gpt-4.1", True),
    "openai": ("toolwire_openai", "gpt-5", True),
    "gemini": ("toolwire_gemini", "gemini-2.5-flash", False),
}


def _suite() -> Any:
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    import suite  # the benchmark's canned vendor answers

    return suite


def _dumps(body: Any, compact: bool) -> bytes:
    if compact:  # the Stainless SDKs' openapi_dumps
        return json.dumps(body, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()
    return json.dumps(body, allow_nan=False).encode()  # google-genai's json.dumps defaults


def _whole(api: str, request: ModelRequest, stream: bool) -> dict[str, Any]:
    """The body a fresh model (no conversation cache) sends for ``request``."""
    fresh = toolwire.model(f"{api}:{APIS[api][1]}", api_key="k", max_retries=0)
    req = fresh.before_encode(dataclasses.replace(request, conversation=None), stream=stream)
    return fresh.stream_body(dict(fresh._preflight(req)[0]), stream)


def test_the_default_threshold_is_past_a_short_loop() -> None:
    # a short loop (the 2-turn loop of the benchmark: 1 and 3 messages) is encoded whole
    assert _Histories.from_messages > 3


@pytest.mark.parametrize("api", list(APIS))
@pytest.mark.parametrize("stream", [False, True])
def test_whole_below_the_threshold_incremental_from_it(api: str, stream: bool) -> None:
    pytest.importorskip(APIS[api][0])
    suite = _suite()
    threshold = _Histories.from_messages
    turns = threshold // 2 + 4  # request k carries 2k - 1 messages: the last ones cross it
    inner = suite.transport_for(api, turns, stream=stream)
    posted: list[bytes] = []
    kept: list[int] = []  # conversations the model keeps after each request

    def handler(request: Any) -> Any:
        posted.append(request.content)
        return inner.handler(request)

    m = toolwire.model(
        f"{api}:{APIS[api][1]}",
        api_key="k",
        max_retries=0,
        stream=stream,
        http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(handler)),
    )
    requests: list[ModelRequest] = []
    prepared = m._preflight

    def spy(request: ModelRequest, **kw: Any) -> Any:
        requests.append(request)
        out = prepared(request, **kw)
        h = vars(m).get("_histories")
        kept.append(0 if h is None else len(h._by_owner))
        return out

    m._preflight = spy
    result = asyncio.run(toolwire.run(m, "go — “ünïcode”", tools=[suite.lookup], max_turns=turns))
    assert result.stop_reason == "end_turn" and len(posted) == turns == len(requests)
    lengths = [len(r.messages) for r in requests]
    assert lengths == [2 * k + 1 for k in range(turns)]
    for req, sent in zip(requests, posted):
        assert sent == _dumps(_whole(api, req, stream), APIS[api][2])
    # below the threshold nothing is kept; from the first request at or past it, the conversation is
    assert kept == [1 if n >= threshold else 0 for n in lengths]
    assert any(n < threshold for n in lengths) and any(n >= threshold for n in lengths)


def test_a_lower_threshold_keeps_the_conversation_from_its_first_request(monkeypatch: pytest.MonkeyPatch) -> None:
    # the switch is read per request: lowered, a 2-turn loop keeps its conversation at once
    pytest.importorskip("toolwire_anthropic")
    suite = _suite()

    def two_turns() -> Any:  # a 2-turn loop on a new model; the model
        m = toolwire.model(
            "anthropic:claude-sonnet-4-5",
            api_key="k",
            max_retries=0,
            http_client=httpx2.AsyncClient(transport=suite.transport_for("anthropic", 2)),
        )
        asyncio.run(toolwire.run(m, "go", tools=[suite.lookup], max_turns=2))
        return m

    monkeypatch.setattr(_Histories, "from_messages", 0)
    assert "_histories" in vars(two_turns())
    monkeypatch.setattr(_Histories, "from_messages", 10**6)
    assert "_histories" not in vars(two_turns())
