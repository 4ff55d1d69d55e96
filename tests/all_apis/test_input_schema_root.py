"""A tool built directly with ``Tool(...)`` (no schema check) whose input schema is not an object
schema (``{"type": "string"}``) is refused before anything is sent, on every API: tool arguments
are always a JSON object (Anthropic ``InputSchemaTyped.type: Literal['object']``; OpenAI "schema
must be a JSON Schema of 'type: \"object\"'"; Gemini ``FunctionDeclaration.parameters_json_schema``
"The schema must describe an object"). Gemini sent it as a declaration without parameters (a
schema without properties reads as a zero-parameter tool), so the model could only call it with
``{}``, which the tool's own schema then refused."""

from __future__ import annotations

import json
from typing import Any

import httpx2
import pytest

import toolwire
from toolwire import Tool
from toolwire.errors import RequestRefused, SchemaTranslationError

from .answers import APIS, text_answer

pytest.importorskip("toolwire_anthropic")
pytest.importorskip("toolwire_openai")
pytest.importorskip("toolwire_gemini")

RULE = {
    "anthropic": "anthropic.schema.root-type-object",
    "openai-chat": "openai-chat.schema.root-not-object",
    "openai": "openai.schema.root-not-object",
    "gemini": "gemini.schema.root-object",
}


CASES = [(api, None) for api in APIS] + [("gemini", "openapi")]  # Gemini's two schema fields


@pytest.mark.parametrize(("api", "mode"), CASES)
@pytest.mark.parametrize(
    "schema", [{"type": "string"}, {"type": "array", "items": {"type": "string"}}, {"type": ["string", "null"]}]
)
def test_a_non_object_input_schema_is_refused_before_sending(api: str, mode: Any, schema: dict[str, Any]) -> None:
    sent: list[dict[str, Any]] = []

    def respond(request: httpx2.Request) -> httpx2.Response:
        sent.append(json.loads(request.content))
        return httpx2.Response(200, json=text_answer(api))

    settings = {} if mode is None else {"schema_mode": mode}
    client = httpx2.AsyncClient(transport=httpx2.MockTransport(respond))
    m = toolwire.model(f"{api}:m-1", api_key="k", max_retries=0, http_client=client, **settings)
    echo = Tool("echo", "Echo a text.", schema, function=lambda value="": value)
    with pytest.raises((SchemaTranslationError, RequestRefused)) as exc:
        toolwire.run_sync(m, "echo hi", tools=[echo])
    err = exc.value
    rules = [v.rule for v in err.violations] if isinstance(err, RequestRefused) else [err.rule]
    assert rules == [RULE[api]]
    assert sent == []
