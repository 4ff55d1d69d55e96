"""Findings of a helper session that tried to break the tool-design layer (session 31): each
test failed on the code before its fix."""

import asyncio
import enum
from pathlib import Path
from typing import Annotated, Any, Optional

import pytest
from pydantic import Field

import toolwire
from toolwire.design.idempotent import non_repeatable
from toolwire.design.paths import confined, confined_path
from toolwire.errors import ToolDefinitionError
from toolwire.testing import ScriptedModel, call


def _runs(responses: list, tools: list) -> list[Any]:
    return toolwire.run_sync(ScriptedModel(responses=[responses, "ok"]), "go", tools=tools).tool_runs


def test_optional_list_and_default_confined_paths_are_confined(tmp_path: Path, monkeypatch: Any) -> None:
    root, outside = tmp_path / "root", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    (root / "a.txt").write_text("inside")
    (outside / "secret.txt").write_text("TOPSECRET")
    (tmp_path / "cwd.txt").write_text("cwd")
    monkeypatch.chdir(tmp_path)
    Docs = confined_path(str(root))

    @toolwire.tool
    @confined
    def two(path: Docs, other: Optional[Docs] = None) -> str:  # type: ignore[valid-type]
        """Read two files."""
        return Path(path).read_text() + (Path(other).read_text() if other else "")

    @toolwire.tool
    @confined
    def many(paths: list[Docs]) -> str:  # type: ignore[valid-type]
        """Read files."""
        return "|".join(Path(p).read_text() for p in paths)

    @toolwire.tool
    @confined
    def where(path: Docs = "cwd.txt") -> str:  # type: ignore[valid-type,assignment]
        """Say where a path is."""
        return str(path)

    runs = _runs(
        [
            call("two", {"path": "a.txt", "other": str(outside / "secret.txt")}, id="c1"),
            call("many", {"paths": ["a.txt", "../outside/secret.txt"]}, id="c2"),
            call("where", {}, id="c3"),
            call("two", {"path": "a.txt"}, id="c4"),
            call("many", {"paths": ["a.txt"]}, id="c5"),
        ],
        [two, many, where],
    )
    out = {r.call.id: r.result for r in runs}
    assert out["c1"].is_error and "TOPSECRET" not in out["c1"].content
    assert out["c2"].is_error and "TOPSECRET" not in out["c2"].content
    assert out["c3"].content == str(root.resolve() / "cwd.txt")  # the default is resolved under the root
    assert (out["c4"].content, out["c5"].content) == ("inside", "inside")

    with pytest.raises(ToolDefinitionError, match="not checked"):

        @confined
        def nested(m: dict[str, Docs]) -> str:  # type: ignore[valid-type]
            """Nested."""
            return ""


def test_lint_reads_functions_with_parameters_and_never_calls_them(tmp_path: Path) -> None:
    from toolwire.design.lint import load_tools

    log = tmp_path / "log.txt"
    (tmp_path / "svc.py").write_text(
        "import functools\n"
        f"LOG = {str(log)!r}\n"
        "def deploy(env: str = 'prod') -> str:\n"
        "    '''Deploy the service. Use it when the user asks to ship.'''\n"
        "    open(LOG, 'a').write('DEPLOYED')\n"
        "    return 'ok'\n"
        "class Svc:\n"
        "    def restart(self, force: bool = False) -> str:\n"
        "        '''Restart the service. Use it when it hangs.'''\n"
        "        open(LOG, 'a').write('RESTARTED')\n"
        "        return 'ok'\n"
        "svc_restart = Svc().restart\n"
        "staging = functools.partial(deploy, env='staging')\n"
    )
    assert [t.name for t in load_tools(f"{tmp_path / 'svc.py'}:deploy")] == ["deploy"]
    assert [t.name for t in load_tools(f"{tmp_path / 'svc.py'}:svc_restart")] == ["restart"]
    with pytest.raises(ToolDefinitionError):
        load_tools(f"{tmp_path / 'svc.py'}:staging")
    assert not log.exists()  # nothing of the user's ran


def test_non_repeatable_calls_spelled_two_ways_run_once() -> None:
    class P(enum.IntEnum):
        LOW = 1
        HIGH = 2

    ran: list[tuple] = []

    @non_repeatable
    def create(title: str, note: Optional[str] = None, priority: P = P.LOW) -> str:
        """Create a ticket."""
        ran.append((title, note, priority))
        return f"#{len(ran)}"

    runs = _runs(
        [
            call("create", {"title": "A"}, id="a"),
            call("create", {"title": "A", "note": None}, id="b"),
            call("create", {"title": "B", "priority": 2}, id="c"),
            call("create", {"title": "B", "priority": "2"}, id="d"),
            call("create", {"title": "B", "priority": 1}, id="e"),
        ],
        [create],
    )
    # the calls of one response run in parallel threads: which ran first is up to the scheduler
    assert sorted(ran) == [("A", None, P.LOW), ("B", None, P.LOW), ("B", None, P.HIGH)]
    assert [r.deduplicated for r in runs] == [False, True, False, True, False]


def test_generator_functions_are_refused_as_tools() -> None:
    def gen(a: int) -> Any:
        """Yield."""
        yield a

    async def agen(a: int) -> Any:
        """Yield."""
        yield a

    for fn in (gen, agen):
        with pytest.raises(ToolDefinitionError, match="generator"):
            toolwire.tool(fn)


def test_field_defaults_and_annotated_field_descriptions() -> None:
    seen: list[tuple] = []

    @toolwire.tool
    def f(
        a: str, x: int = Field(3, description="how many", ge=1), y: Annotated[int, Field(description="why")] = 2
    ) -> str:
        """Do f."""
        seen.append((x, y))
        return "ok"

    props = f.input_schema["properties"]
    assert (props["x"]["default"], props["x"]["description"], props["x"]["minimum"]) == (3, "how many", 1)
    assert props["y"]["description"] == "why" and f.input_schema["required"] == ["a"]
    _runs([call("f", {"a": "q"}, id="c1"), call("f", {"a": "q", "x": 5}, id="c2")], [f])
    assert seen == [(3, 2), (5, 2)]


def test_lint_flags_required_names_that_are_not_properties() -> None:
    from toolwire.design.lint import lint_tools

    t = toolwire.Tool.from_schema(
        "signup",
        "Sign a user up. Use it when someone asks to join.",
        {
            "type": "object",
            "properties": {"email": {"type": "string", "description": "Their email."}},
            "required": ["emial"],
        },
        lambda **a: "ok",
    )
    found = [(f.rule, f.pointer) for f in lint_tools([t]).findings if f.severity == "error"]
    assert ("schema-invalid", "/input_schema/required/0") in found


def test_an_mcp_server_never_hands_one_client_another_clients_result() -> None:
    import toolwire.mcp as twm

    ran: list[str] = []

    @non_repeatable
    def create(title: str) -> str:
        """Create a ticket."""
        ran.append(title)
        return f"#{len(ran)}"

    server = twm.create_server([create], name="tickets")

    async def two_clients() -> list[Any]:
        out = []
        for _ in range(2):
            async with twm.connect(server) as ts:
                out.append(await ts.tools[0].call({"title": "a"}))
        return out

    assert asyncio.run(two_clients()) == ["#1", "#2"] and ran == ["a", "a"]


def test_lint_flags_a_schema_json_cannot_carry() -> None:
    from toolwire.design.lint import lint_tools

    @toolwire.tool
    def rows(limit: float = float("inf")) -> str:
        """Fetch rows. Use it when the user asks for rows."""
        return "x"

    found = [(f.rule, f.pointer) for f in lint_tools([rows]).findings if f.severity == "error"]
    assert ("schema-invalid", "/input_schema") in found


def test_undeclared_parameter_ignores_backticked_programs_and_formats() -> None:
    from toolwire.design.lint import lint_tools

    @toolwire.tool
    def find(pattern: str) -> str:
        """Search the notes. Use `grep` instead for code, and read `json` output; pass `max_hits` to limit."""
        return "x"

    named = [f.message for f in lint_tools([find]).findings if f.rule == "undeclared-parameter"]
    assert len(named) == 1 and "'max_hits'" in named[0]


# -- regressions a review found in the fixes above --------------------------------------------


def test_null_is_a_different_call_from_left_out_when_the_schema_has_no_null_default() -> None:
    ran: list[dict] = []

    def handler(**kw: Any) -> str:
        ran.append(kw)
        return "ok"

    upd = non_repeatable(
        toolwire.Tool.from_schema(
            "update_task",
            "Update a task. Omit a field to keep it; pass null to clear it.",
            {
                "type": "object",
                "properties": {"id": {"type": "integer"}, "due": {"type": ["string", "null"]}},
                "required": ["id"],
            },
            handler,
        )
    )
    _runs([call("update_task", {"id": 1}, id="a"), call("update_task", {"id": 1, "due": None}, id="b")], [upd])
    assert len(ran) == 2


def test_lint_does_not_flag_required_names_of_a_variant_defined_on_its_parent() -> None:
    from toolwire.design.lint import lint_tools

    schema = {
        "type": "object",
        "properties": {"method": {"type": "string"}, "address": {"type": "string"}, "locker": {"type": "string"}},
        "required": ["method"],
        "oneOf": [
            {"properties": {"method": {"const": "pickup"}}, "required": ["address"]},
            {"properties": {"method": {"const": "dropoff"}}, "required": ["locker"]},
        ],
    }
    t = toolwire.Tool.from_schema("ship", "Ship a parcel. Use it when asked to send one.", schema, lambda **a: "ok")
    assert [f for f in lint_tools([t]).findings if f.rule == "schema-invalid"] == []


def test_confined_paths_inside_optional_lists_and_annotated_fields(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    (root / "a.txt").write_text("A")
    Docs = confined_path(str(root))

    @toolwire.tool
    @confined
    def read(
        paths: Optional[list[Docs]] = None,  # type: ignore[valid-type]
        one: Annotated[Optional[Docs], Field(description="One file.")] = None,  # type: ignore[valid-type]
    ) -> str:
        """Read files."""
        return "|".join(Path(p).read_text() for p in (paths or []) + ([one] if one else []))

    runs = _runs(
        [
            call("read", {"paths": ["a.txt", "../x"]}, id="c1"),
            call("read", {"one": "a.txt", "paths": ["a.txt"]}, id="c2"),
        ],
        [read],
    )
    assert runs[0].result.is_error and (runs[1].result.is_error, runs[1].result.content) == (False, "A|A")


def test_backticked_capitalised_words_after_send_or_set_are_not_parameters() -> None:
    from toolwire.design.lint import lint_tools

    @toolwire.tool
    def kill(job: str) -> str:
        """Stop a job. Use it to send `SIGTERM` to the job's process; set `PNG` or `Slack` as you like."""
        return "x"

    assert [f for f in lint_tools([kill]).findings if f.rule == "undeclared-parameter"] == []


def test_field_default_of_a_plain_field_reaches_the_function_as_its_value() -> None:
    seen: list[Any] = []

    @toolwire.tool
    def count(n: int = Field(3, description="How many."), word: str = "a") -> str:
        """Count."""
        seen.append((n, word))
        return "ok"

    _runs([call("count", {"word": "b"}, id="c1")], [count])
    assert seen == [(3, "b")]


def test_a_served_tool_keeps_its_context_state_across_calls() -> None:
    import toolwire.mcp as twm
    from toolwire.context import ToolContext

    @toolwire.tool
    def note(text: str, ctx: ToolContext) -> str:
        """Keep a note."""
        notes = ctx.state.setdefault("notes", [])
        notes.append(text)
        return ",".join(notes)

    server = twm.create_server([note], name="notes")

    async def calls() -> list[Any]:
        async with twm.connect(server) as ts:
            return [await ts.tools[0].call({"text": "a"}), await ts.tools[0].call({"text": "b"})]

    assert asyncio.run(calls()) == ["a", "a,b"]


def test_thinking_mappings_and_false_are_taken() -> None:
    from types import MappingProxyType

    m = toolwire.model("openai:gpt-5", api_key="k", thinking=MappingProxyType({"effort": "low"}))
    assert m.prepare(m.build_request([toolwire.Message.user("hi")]))["reasoning"]["effort"] == "low"
    m = toolwire.model("openai:gpt-5", api_key="k", thinking=False)
    assert "reasoning" not in m.prepare(m.build_request([toolwire.Message.user("hi")]))
