"""Built-in tools (googleSearch, codeExecution, urlContext, ...) with JSON output, through the real
``google-genai`` SDK over ``httpx2.MockTransport``: Gemini 2.x refuses them together, so the request
is refused before anything is sent; Gemini 3 takes them and the request is sent as given."""

from __future__ import annotations

import pytest
from gemini_wire_helpers import candidate_body, json_response

import toolwire
from toolwire import ProviderTool
from toolwire.profile import RequestRefused

JSON_OUT = {"generationConfig": {"responseMimeType": "application/json"}}


@pytest.mark.parametrize("tool_type", ["googleSearch", "codeExecution", "urlContext"])
def test_json_output_with_a_built_in_tool_is_refused_on_gemini_2(mock_model, tool_type) -> None:
    model = mock_model([json_response(candidate_body([{"text": "{}"}]))], "gemini-2.5-flash", **JSON_OUT)
    with pytest.raises(RequestRefused) as exc:
        toolwire.run_sync(model, "Find it.", tools=[ProviderTool("gemini", tool_type)])
    assert [(v.rule, v.pointer) for v in exc.value.violations] == [
        ("gemini.request.json-mode-with-server-tools", "/generationConfig/responseMimeType")
    ]
    assert model.sent == []


def test_json_output_with_a_built_in_tool_is_sent_to_gemini_3(mock_model) -> None:
    reply = candidate_body([{"text": "{}"}], model="gemini-3-flash-preview")
    model = mock_model([json_response(reply)], "gemini-3-flash-preview", **JSON_OUT)
    toolwire.run_sync(model, "Find it.", tools=[ProviderTool("gemini", "googleSearch")])
    sent = model.sent[0].json
    assert sent["tools"] == [{"googleSearch": {}}]
    assert sent["generationConfig"]["responseMimeType"] == "application/json"


def test_a_built_in_tool_without_json_output_is_sent_to_gemini_2(mock_model) -> None:
    model = mock_model([json_response(candidate_body([{"text": "ok"}]))], "gemini-2.5-flash")
    toolwire.run_sync(model, "Find it.", tools=[ProviderTool("gemini", "googleSearch")])
    assert model.sent[0].json["tools"] == [{"googleSearch": {}}]
