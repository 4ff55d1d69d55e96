"""The same turn behaviour on every API (vendor-neutral; the loop calls these).

- **Cut-off calls.** A response that stopped at the output-token limit (canonical stop reason
  ``max_tokens``) and ends with a tool call: that call was being written when the limit hit, so
  its arguments are not known to be complete — whatever their text, blank or valid JSON
  included. :func:`settle_calls` marks it ``incomplete``; the loop answers it with an
  ``is_error`` "cut off" result and never runs it.
- **Failed turns.** A response whose vendor stop reason the API's profile says means the turn
  failed (:meth:`toolwire.profile.Profile.turn_failed`): every tool call in it is marked invalid
  with the reason and answered with an ``is_error`` result, none is run.
- **Unanswered calls in a supplied history.** A conversation in which a tool call has no
  result: :func:`answer_unanswered` answers it with an ``is_error`` result (:data:`NOT_ANSWERED`:
  the call was not run, call the tool again if its result is still needed), placed where every
  API expects it (first in the message right after the call). The same on all four APIs and at
  every level: ``run`` answers such calls in the run's conversation before the first request;
  :meth:`toolwire.adapter.Model.send` / ``send_stream`` answer them in the request they send;
  every built-in codec's ``encode_request`` answers them in the body it encodes
  (:func:`answer_request`). Each answer is reported on the turn (``Response.preflight``, rule
  :data:`UNANSWERED_RULE`), never refused.
- **Parts in a message of the wrong role** (a history given to ``Model.send`` or a codec; ``run``
  refuses it): a result in an assistant message answering a call made at or before it is sent
  after the call (:func:`place_late_results`, rule :data:`RESULT_MOVED_RULE`); one answering no
  such call, a call in a user message and the results answering that call are left out and
  reported (:func:`misplaced_changes`). The same on all four APIs.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Callable, Sequence
from operator import attrgetter
from typing import Any

from .types import ImagePart, Message, Response, TextPart, ToolCall, ToolResult
from .wire import duplicate_id_invalid

__all__ = [
    "assistant_image_changes",
    "inline_image_type",
    "tool_image_changes",
    "tool_image_note",
    "tool_image_url_note",
    "not_image_tool_note",
    "readable_tool_result",
    "CUT_OFF",
    "CUT_OFF_CONTEXT",
    "NOT_ANSWERED",
    "UNANSWERED_RULE",
    "DUPLICATE_CALL_RULE",
    "DUPLICATE_RESULT_RULE",
    "RESULT_BEFORE_CALL_RULE",
    "RESULT_MOVED_RULE",
    "CALL_IN_USER_RULE",
    "RESULT_IN_ASSISTANT_RULE",
    "SYSTEM_AS_USER_RULE",
    "marked_system_role",
    "system_as_user_changes",
    "misplaced_changes",
    "duplicate_changes",
    "moved_result_changes",
    "place_late_results",
    "answer_request",
    "answer_unanswered",
    "context_window_full",
    "renumber_reused_ids",
    "ASSISTANT_IMAGE_NOTE",
    "report_unanswered",
    "settle_calls",
    "turn_failed_reason",
]

#: ``ToolCall.invalid`` of a call cut off by the output-token limit.
CUT_OFF = "cut off by the output-token limit before its arguments were complete"

#: ``ToolCall.invalid`` of a call cut off because the conversation filled the context window.
CUT_OFF_CONTEXT = "cut off before its arguments were complete: the conversation filled the model's context window"

#: The text of the ``is_error`` result that answers a call a supplied history left unanswered.
NOT_ANSWERED = (
    "Not run: this tool call was not answered in the conversation history, so its result is unknown.\n"
    "Call the tool again if you still need its result."
)

#: The rule id of the :class:`~toolwire.profile.RequestChange` reporting such an answer (the same
#: on every API: the conversation rule it keeps is each API's "every call answered" rule).
UNANSWERED_RULE = "conversation.unanswered-call"

#: The rule id of the lossy change reporting a result left out because an earlier result already
#: answers its call (every API takes one result per call; :func:`duplicate_changes`).
DUPLICATE_RESULT_RULE = "conversation.duplicate-result"

#: The rule id of the lossy change reporting a call left out because its decoder marked it as
#: repeating the id of an earlier call of the same response (:func:`duplicate_changes`).
DUPLICATE_CALL_RULE = "conversation.duplicate-call"

#: The rule id of the lossy change reporting a result left out because it comes before its call
#: (the Anthropic codec; the other APIs refuse such a request: :func:`duplicate_changes`).
RESULT_BEFORE_CALL_RULE = "conversation.result-before-call"

#: The rule id of the change (not lossy) reporting a result sent right after its call although
#: other messages came between them in the conversation, or it sat in an assistant message
#: (:func:`place_late_results`).
RESULT_MOVED_RULE = "conversation.result-moved"

#: The rule id of the lossy change reporting a tool call in a user message, left out (the model
#: never made it), and each result answering it, left out with it (:func:`misplaced_changes`).
CALL_IN_USER_RULE = "conversation.call-in-user-message"

#: The rule id of the lossy change reporting a result in an assistant message that answers no call
#: made at or before it (in its own message or an earlier assistant message), left out: there is
#: no place after its call to send it (:func:`misplaced_changes`).
RESULT_IN_ASSISTANT_RULE = "conversation.result-in-assistant-message"


#: The rule id of the lossy change reporting a system or developer message inside the
#: conversation, marked so by another API's ``decode_request`` (:func:`marked_system_role`),
#: sent as a user message by an API that has no such message there (:func:`system_as_user_changes`).
SYSTEM_AS_USER_RULE = "conversation.system-message-as-user"

#: The roles another API's import keeps on a user message that was a system or developer message
#: inside the conversation (Anthropic ``role: "system"`` in ``messages``; OpenAI Chat and
#: Responses ``"system"`` / ``"developer"`` after the first message).
_SYSTEM_ROLES = ("system", "developer")


def marked_system_role(message: Message, api: str) -> tuple[str, str] | None:
    """``(owner, role)`` when ``message`` is a user message that another API's ``decode_request``
    (``owner``, e.g. ``"anthropic"``) imported from a ``role`` (``"system"`` or ``"developer"``)
    message inside the conversation (``provider_data[owner]["role"]``); ``None`` for any other
    message, and for one ``api`` itself marked (its own encoder sends that back)."""
    pd = message.provider_data
    if message.role != "user" or not pd:
        return None
    own = pd.get(api)
    if isinstance(own, dict) and own.get("role") is not None:
        return None
    for owner, data in pd.items():
        if owner != api and isinstance(data, dict) and data.get("role") in _SYSTEM_ROLES:
            return owner, data["role"]
    return None


def system_as_user_changes(
    messages: Any, offset: int, api: str, kept: Any = None
) -> list[tuple[str, str, str, None, None]]:
    """The lossy changes (``(rule, pointer, detail, tool, call_id)``, rule
    :data:`SYSTEM_AS_USER_RULE`) for the messages of ``messages`` (numbered from ``offset``) that
    :func:`marked_system_role` finds and that ``api`` sends as user messages: every one, or those
    for which ``kept(message, role)`` (the API's own equivalent takes it) is false."""
    out: list[tuple[str, str, str, None, None]] = []
    for i, m in enumerate(messages, offset):
        marked = marked_system_role(m, api)
        if marked is None or (kept is not None and kept(m, marked[1])):
            continue
        owner, role = marked
        out.append(
            (
                SYSTEM_AS_USER_RULE,
                f"/messages/{i}",
                f"the {owner} {role} message inside the conversation was sent as a user message: {api} has no "
                f"{role} message that could hold it there, so the model reads its text as the user's (put standing "
                "instructions in instructions=)",
                None,
                None,
            )
        )
    return out


#: What an image in an assistant message becomes on an API that takes images only from the user
#: (Anthropic: "'image' blocks are not permitted within assistant turns"; OpenAI: "Image URLs are
#: only allowed for messages with role 'user'"): text saying an image was there, so the model is
#: not told a different story than the one it took part in (a history from Gemini's image output,
#: or built by hand).
ASSISTANT_IMAGE_NOTE = "[an image was here; it is not sent, since this API takes images only in user messages]"


def assistant_image_changes(messages: Any, offset: int, api: str) -> list[tuple[str, str, str, None, None]]:
    """The lossy changes (``(rule, pointer, detail, tool, call_id)``, rule
    ``<api>.conversation.assistant-image``) for the images of assistant messages in
    ``messages`` (numbered from ``offset``), which an API taking images only in user messages
    gets as :data:`ASSISTANT_IMAGE_NOTE` instead."""
    return [
        (
            f"{api}.conversation.assistant-image",
            f"/messages/{i}/parts/{j}",
            "an image in an assistant message was sent as a note: this API takes images only in user messages",
            None,
            None,
        )
        for i, m in enumerate(messages, offset)
        if m.role == "assistant"
        for j, p in enumerate(m.parts)
        if isinstance(p, ImagePart)
    ]


#: The media types an ``image/jpg``-style alias names (lower-cased, as the APIs compare them).
_MEDIA_ALIASES = {"image/jpg": "image/jpeg", "image/pjpeg": "image/jpeg", "image/x-png": "image/png"}


def inline_image_type(part: Any) -> str | None:
    """The format of an inline image as an API reads it: its bytes' signature
    (:func:`~toolwire.types.signature_media_type`: PNG, JPEG, GIF, WebP) where they have one, else
    its declared ``media_type`` (lower-cased, parameters left out, ``image/jpg`` as ``image/jpeg``:
    :attr:`~toolwire.types.ImagePart.wire_media_type`); ``None`` for an
    image given by URL (the API fetches it and reads its type itself)."""
    if part.data is None:
        return None
    # what the codecs send (ImagePart.wire_media_type): the signature's type, else the declared
    # one without parameters ("image/heic; charset=binary" goes out as image/heic)
    declared = part.wire_media_type or ""
    return _MEDIA_ALIASES.get(declared, declared)


#: How the note names a readable format, in the order it lists them.
_FORMAT_NAMES = {
    "image/png": "PNG",
    "image/jpeg": "JPEG",
    "image/gif": "GIF",
    "image/webp": "WebP",
    "image/heic": "HEIC",
    "image/heif": "HEIF",
}


def tool_image_note(media_type: str, readable: frozenset[str] | None = None) -> str:
    """What an image a tool returned becomes on an API that cannot read its format (rule
    ``<api>.conversation.tool-result-image-type``): text saying so, so the model knows an image
    was there and the run goes on (the API would refuse the whole request, and every later one
    of the run, since the result stays in the conversation). It names the formats of
    ``readable`` (the API's) to return instead; PNG, JPEG, GIF and WebP when not given."""
    kinds = readable if readable is not None else frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})
    names = [n for t, n in _FORMAT_NAMES.items() if t in kinds]
    names += sorted(t for t in kinds if t not in _FORMAT_NAMES)
    formats = ", ".join(names[:-1]) + f" or {names[-1]}" if len(names) > 1 else "".join(names)
    return (
        f"[the tool returned an image of type {media_type or 'unknown'}, which this API does not read; "
        f"it is not sent. Return {formats} images.]"
    )


def _url_named(url: str) -> str:
    """How a note or a report names an image URL an API cannot fetch: ``file:...``,
    ``ftp:...``, ``data:...`` (its scheme), or ``a local path`` (a relative reference, or a
    Windows drive path such as ``C:\\shots\\a.png``)."""
    from .types import url_scheme

    scheme = url_scheme(url)
    return f"{scheme}:..." if len(scheme) > 1 else "a local path"


def tool_image_url_note(url: str) -> str:
    """What an image a tool returned by a URL the API cannot fetch becomes (rules
    ``<api>.conversation.image-url``, ``gemini.conversation.file-uri``): text saying so, so the
    model knows an image was there and the run goes on (the API would refuse the whole request,
    and every later one of the run). The note names the URL's scheme only, not the URL."""
    return (
        f"[the tool returned an image by a URL this API cannot fetch ({_url_named(url)}); it is not sent. "
        "Return the image's bytes.]"
    )


#: What an API gets in place of an image a tool returned with no bytes (``ImagePart(data=b"")``),
#: which every API refuses: the run goes on and the model knows an image was meant.
EMPTY_TOOL_IMAGE_NOTE = "[the tool returned an empty image (no bytes); it is not sent.]"


def not_image_tool_note(media_type: str | None, problem: str) -> str:
    """What an image a tool returned becomes when its bytes are no image at all (rule
    ``<api>.conversation.image-bytes``: declared PNG, JPEG, GIF or WebP, with no image signature;
    ``problem`` as :func:`~toolwire.types.not_image_problem` gives it): text saying so, so the
    model knows the tool's output was not the image it meant and the run goes on (the API would
    refuse the whole request, and every later one of the run)."""
    return (
        f"[the tool returned an image declared {media_type or 'an image type'} holding {problem}; it is not sent. "
        "The file or download may be an error page, empty or cut short.]"
    )


def _not_image(c: Any) -> str | None:
    """:func:`~toolwire.types.not_image_problem` for the inline image part ``c`` (with bytes)."""
    from .types import HEAD_BYTES, not_image_problem

    return not_image_problem(c.data[:HEAD_BYTES], c.media_type)  # the head only: an image may be MBs


def _unsent_note(c: Any, readable: frozenset[str], fetches: Callable[[str], bool] | None) -> str | None:
    """The note an API (reading the formats ``readable``, fetching the URLs ``fetches`` takes)
    gets in place of the image part ``c`` of a tool result, or ``None`` when ``c`` is sent."""
    if c.data is not None:
        if not c.data:
            return EMPTY_TOOL_IMAGE_NOTE
        if (problem := _not_image(c)) is not None:
            return not_image_tool_note(c.media_type, problem)
        kind = inline_image_type(c)
        return tool_image_note(kind, readable) if kind is not None and kind not in readable else None
    url = c.url
    if fetches is not None and type(url) is str and not fetches(url):
        return tool_image_url_note(url)
    return None


def readable_tool_result(result: Any, readable: frozenset[str], fetches: Callable[[str], bool] | None = None) -> Any:
    """``result`` (a :class:`~toolwire.types.ToolResult`) as an API reading the image formats
    ``readable`` gets it: each inline image of another format (:func:`inline_image_type`)
    replaced by a text part holding :func:`tool_image_note`, and, with ``fetches`` (a function
    of a URL saying whether the API fetches it), each image by a URL it does not fetch replaced
    by one holding :func:`tool_image_url_note`. The same object when there is none (the usual
    case); a copy otherwise (the conversation keeps the image)."""
    content = result.content
    if isinstance(content, str):
        return result
    notes = [_unsent_note(c, readable, fetches) if type(c) is ImagePart else None for c in content]
    if not any(notes):
        return result
    parts = [TextPart(n) if n is not None else c for c, n in zip(content, notes)]
    return dataclasses.replace(result, content=parts)


def tool_image_changes(
    messages: Any,
    offset: int,
    api: str,
    readable: frozenset[str],
    fetches: Callable[[str], bool] | None = None,
    url_rule: str | None = None,
) -> list[tuple[str, str, str, str | None, str | None]]:
    """The lossy changes (``(rule, pointer, detail, tool, call_id)``) for the images in tool
    results of ``messages`` (numbered from ``offset``) that :func:`readable_tool_result` sends
    as a note: inline images whose format (:func:`inline_image_type`) is not in ``readable``
    (rule ``<api>.conversation.tool-result-image-type``) and, with ``fetches``, images by a URL
    the API does not fetch (rule ``url_rule``, by default ``<api>.conversation.image-url``)."""
    from .types import ImagePart, ToolResult

    out: list[tuple[str, str, str, str | None, str | None]] = []
    for i, m in enumerate(messages, offset):
        for j, p in enumerate(m.parts):
            if type(p) is not ToolResult or isinstance(p.content, str):
                continue
            for k, c in enumerate(p.content):
                if type(c) is not ImagePart:
                    continue
                # a result built by hand may carry no tool name: its call id names it then
                by = f"tool {p.name!r}" if p.name is not None else f"call {p.tool_call_id!r}"
                if c.data is not None and not c.data:
                    out.append(
                        (
                            f"{api}.conversation.tool-result-image-type",
                            f"/messages/{i}/parts/{j}/content/{k}",
                            f"an empty image (no bytes) returned by {by} was sent as a note: every API refuses it",
                            p.name,
                            p.tool_call_id,
                        )
                    )
                elif c.data is not None and (problem := _not_image(c)) is not None:
                    out.append(
                        (
                            f"{api}.conversation.image-bytes",
                            f"/messages/{i}/parts/{j}/content/{k}",
                            f"an image declared {c.media_type!r} returned by {by} was sent as a note: it holds {problem}",
                            p.name,
                            p.tool_call_id,
                        )
                    )
                elif (kind := inline_image_type(c)) is not None and kind not in readable:
                    out.append(
                        (
                            f"{api}.conversation.tool-result-image-type",
                            f"/messages/{i}/parts/{j}/content/{k}",
                            f"an image of type {kind or 'unknown'} returned by {by} was sent as a note: "
                            f"this API reads {', '.join(sorted(readable))}",
                            p.name,
                            p.tool_call_id,
                        )
                    )
                elif c.data is None and fetches is not None and type(c.url) is str and not fetches(c.url):
                    shown = c.url if len(c.url) <= 80 else c.url[:77] + "..."
                    out.append(
                        (
                            url_rule or f"{api}.conversation.image-url",
                            f"/messages/{i}/parts/{j}/content/{k}",
                            f"an image by URL {shown!r} ({_url_named(c.url)}) returned by {by} was sent "
                            "as a note: this API cannot fetch it",
                            p.name,
                            p.tool_call_id,
                        )
                    )
    return out


def duplicate_changes(
    messages: Any, offset: int, before_call: bool = False
) -> list[tuple[str, str, str, str | None, str | None]]:
    """The lossy changes (``(rule, pointer, detail, tool, call_id)``) for the parts of
    ``messages`` (numbered from ``offset``; ids as :func:`renumber_reused_ids` left them) that
    every built-in codec leaves out because each call is answered exactly once: a result for a
    call an earlier result already answers (rule :data:`DUPLICATE_RESULT_RULE`), and a call its
    decoder marked as repeating the id of an earlier call of the same response
    (:func:`toolwire.wire.duplicate_id_invalid`; never run, left out with its error result, rule
    :data:`DUPLICATE_CALL_RULE`). With ``before_call`` (a codec that leaves out a result placed
    before its call, rather than sending it for the preflight to refuse), such a result too
    (rule :data:`RESULT_BEFORE_CALL_RULE`).

    Results are taken in the order :func:`place_late_results` sends them: a result in the
    assistant message holding its call (before or after the call) answers it only when no later
    message does. Calls in user messages, results answering only those, and results in an
    assistant message that answer no call made at or before it are :func:`misplaced_changes`'."""
    out: list[tuple[str, str, str, str | None, str | None]] = []
    calls: set[str] = set()
    answered: set[str] = set()
    later: set[str] = set()
    if before_call:
        later = {p.id for m in messages if m.role == "assistant" for p in m.parts if isinstance(p, ToolCall)}
    own: list[tuple[int, int, ToolResult]] = []  # results in their call's own assistant message

    def duplicate(i: int, j: int, p: ToolResult) -> None:
        out.append(
            (
                DUPLICATE_RESULT_RULE,
                f"/messages/{i}/parts/{j}",
                f"a second result for tool call {p.tool_call_id!r} was left out: an earlier result answers the "
                "call, and each call is answered once",
                p.name,
                p.tool_call_id,
            )
        )

    for i, m in enumerate(messages, offset):
        assistant = m.role == "assistant"
        here: set[str] = set()
        if assistant:
            for j, p in enumerate(m.parts):
                if not isinstance(p, ToolCall):
                    continue
                if p.id in here and p.invalid == duplicate_id_invalid(p.id):
                    out.append(
                        (
                            DUPLICATE_CALL_RULE,
                            f"/messages/{i}/parts/{j}",
                            f"tool call {p.id!r} repeats the id of an earlier call of its response and was never "
                            "run: left out, with its error result",
                            p.name if isinstance(p.name, str) else None,
                            p.id,
                        )
                    )
                    continue
                here.add(p.id)
        for j, p in enumerate(m.parts):
            if not isinstance(p, ToolResult):
                continue
            rid = p.tool_call_id
            if assistant and rid not in calls:
                if rid in here:
                    own.append((i, j, p))  # answers its call only when no later message does
                continue  # else answers no call made before it: misplaced_changes
            if rid in answered:
                duplicate(i, j, p)
            elif rid in calls:
                answered.add(rid)
            elif rid in later:
                out.append(
                    (
                        RESULT_BEFORE_CALL_RULE,
                        f"/messages/{i}/parts/{j}",
                        f"the result for tool call {rid!r} comes before the call and was left out: a result "
                        "answers a call made before it (without a later result the call is answered as not run)",
                        p.name,
                        rid,
                    )
                )
        calls |= here
    for i, j, p in own:
        if p.tool_call_id in answered:
            duplicate(i, j, p)
        else:
            answered.add(p.tool_call_id)
    return out


def _user_call_ids(messages: Any) -> set[str]:
    """The ids of the tool calls in user messages that no assistant message makes: such a call is
    left out, with the results answering it (:func:`misplaced_changes`)."""
    user: set[str] = set()
    for m in messages:
        if m.role != "assistant":
            for p in m.parts:
                if isinstance(p, ToolCall):
                    user.add(p.id)
    if user:
        user -= {p.id for m in messages if m.role == "assistant" for p in m.parts if isinstance(p, ToolCall)}
    return user


def misplaced_changes(messages: Any, offset: int) -> list[tuple[str, str, str, str | None, str | None]]:
    """The lossy changes (``(rule, pointer, detail, tool, call_id)``) for the parts of ``messages``
    (numbered from ``offset``) in a message of a role no API takes them in, which every built-in
    codec leaves out (:func:`answer_request` takes them out before encoding):

    - a tool call in a user message (rule :data:`CALL_IN_USER_RULE`): the model never made it, and
      every API takes calls only from the model; each result answering it goes with it (it
      would answer no call of the body, which every API refuses);
    - a result in an assistant message that answers no call made at or before it, in its own
      message or an earlier assistant message (rule :data:`RESULT_IN_ASSISTANT_RULE`).

    A result in an assistant message that does answer such a call is sent after it
    (:func:`place_late_results`, reported by :func:`moved_result_changes`), or is a second result
    (:func:`duplicate_changes`)."""
    out: list[tuple[str, str, str, str | None, str | None]] = []
    user_calls = _user_call_ids(messages)
    made: set[str] = set()
    for i, m in enumerate(messages, offset):
        assistant = m.role == "assistant"
        if assistant:
            made.update(p.id for p in m.parts if isinstance(p, ToolCall))
        for j, p in enumerate(m.parts):
            if isinstance(p, ToolCall) and not assistant:
                out.append(
                    (
                        CALL_IN_USER_RULE,
                        f"/messages/{i}/parts/{j}",
                        f"tool call {p.id!r} in a user message was left out: tool calls are the model's and go in "
                        "assistant messages",
                        p.name if isinstance(p.name, str) else None,
                        p.id,
                    )
                )
            elif isinstance(p, ToolResult):
                rid = p.tool_call_id
                if rid in user_calls:
                    out.append(
                        (
                            CALL_IN_USER_RULE,
                            f"/messages/{i}/parts/{j}",
                            f"the result for tool call {rid!r} was left out with its call, which is in a user "
                            "message: it would answer no call the model made",
                            p.name,
                            rid,
                        )
                    )
                elif assistant and rid not in made:
                    out.append(
                        (
                            RESULT_IN_ASSISTANT_RULE,
                            f"/messages/{i}/parts/{j}",
                            f"the result for tool call {rid!r} in an assistant message was left out: it answers no "
                            "call made before it, and a result goes in the user message after its call",
                            p.name,
                            rid,
                        )
                    )
    return out


def turn_failed_reason(vendor_stop_reason: str | None) -> str:
    """``ToolCall.invalid`` of the calls in a failed turn (names the vendor's stop reason)."""
    return f"the model's turn failed (the API's stop reason was {vendor_stop_reason!r}), so the call was not run"


def settle_calls(response: Response, profile: Any = None) -> list[ToolCall]:
    """Mark the calls of ``response`` that must not run: the last call of a response cut off by
    the output-token limit (``incomplete``, :data:`CUT_OFF`; :data:`CUT_OFF_CONTEXT` when the
    ``profile`` says the context window filled, :meth:`~toolwire.profile.Profile.context_window_full`),
    and every call of a turn the ``profile`` says failed (``invalid``, :func:`turn_failed_reason`).
    Returns the calls marked here. Calls already invalid or incomplete are left as the decoder
    marked them."""
    calls = response.tool_calls
    if not calls:
        return []
    marked: list[ToolCall] = []
    failed = False
    if profile is not None:
        try:
            failed = bool(profile.turn_failed(response.vendor_stop_reason))
        except Exception:
            failed = False
    if failed:
        reason = turn_failed_reason(response.vendor_stop_reason)
        for call in calls:
            if call.invalid is None and not call.incomplete:
                call.invalid = reason
                marked.append(call)
        return marked
    if response.stop_reason == "max_tokens" and response.parts and isinstance(response.parts[-1], ToolCall):
        last = response.parts[-1]
        if not last.incomplete:
            last.incomplete = True
            if last.invalid is None:
                last.invalid = CUT_OFF_CONTEXT if context_window_full(response, profile) else CUT_OFF
            marked.append(last)
    return marked


def context_window_full(response: Response, profile: Any) -> bool:
    """Whether ``profile`` says ``response`` stopped because the conversation filled the
    model's context window (:meth:`~toolwire.profile.Profile.context_window_full` of its vendor
    stop reason); ``False`` without a profile or when the profile's check fails."""
    check = getattr(profile, "context_window_full", None)
    if check is None:
        return False
    try:
        return bool(check(response.vendor_stop_reason))
    except Exception:
        return False


def answer_unanswered(messages: list[Message]) -> tuple[list[Message], list[ToolCall]]:
    """``messages`` with every tool call that no later message answers answered by an
    ``is_error`` :class:`ToolResult` (:data:`NOT_ANSWERED`), and the calls answered.

    The result goes first into the message right after the assistant message holding the call
    when that message is a ``user`` message (after the results already there), else into a new
    ``user`` message inserted right after it. The given messages are not changed (changed ones are
    copies); with nothing to answer the same list is returned."""
    answered = {r.tool_call_id for m in messages for r in m.tool_results}
    missing: dict[int, list[ToolCall]] = {}
    for i, m in enumerate(messages):
        if m.role != "assistant":
            continue
        calls = [c for c in m.tool_calls if c.id not in answered]
        if calls:
            missing[i] = calls
    if not missing:
        return messages, []
    out: list[Message] = []
    done: list[ToolCall] = []
    skip_next = False
    for i, m in enumerate(messages):
        if skip_next:
            skip_next = False
            continue
        out.append(m)
        calls = missing.get(i)
        if not calls:
            continue
        results = [
            ToolResult(c.id, NOT_ANSWERED, is_error=True, name=c.name if isinstance(c.name, str) else None)
            for c in calls
        ]
        done.extend(calls)
        nxt = messages[i + 1] if i + 1 < len(messages) else None
        if nxt is not None and nxt.role == "user":
            lead = [p for p in nxt.parts if isinstance(p, ToolResult)]
            rest = [p for p in nxt.parts if not isinstance(p, ToolResult)]
            out.append(Message("user", lead + results + rest, dict(nxt.provider_data)))
            skip_next = True
        else:
            out.append(Message("user", list(results)))
    return out, done


def _late_results(messages: Sequence[Message], merged_turns: bool = True) -> list[tuple[int, int, int]]:
    """``(call message index, result message index, part index)`` of each result that answers a
    call (the first result with the call's id in a message after the call's) but has a message
    of another role than ``assistant`` between it and the call (assistant messages in a row are
    one turn to an API that merges them). With ``merged_turns=False`` (an API that keeps each
    assistant message apart, such as OpenAI Chat), any message between them counts.

    Also each result sitting in an assistant message that answers a call made there or in an
    earlier assistant message (no API takes a result from the model): one in the call's own
    message (before or after the call) answers it only when no later message holds a result
    for it. In conversation order."""
    call_at: dict[str, int] = {}
    seen_results: set[str] = set()
    late: list[tuple[int, int, int]] = []
    own: list[tuple[int, int, int]] = []
    for i, m in enumerate(messages):
        if m.role == "assistant":
            here: set[str] = set()
            results = False
            for p in m.parts:
                if isinstance(p, ToolCall):
                    if p.id in here and p.invalid == duplicate_id_invalid(p.id):
                        continue  # a repeated id the encoders leave out with its result
                    here.add(p.id)
                    call_at.setdefault(p.id, i)
                elif isinstance(p, ToolResult):
                    results = True
            if not results:
                continue
            for j, p in enumerate(m.parts):
                if isinstance(p, ToolResult):
                    rid = p.tool_call_id
                    at = call_at.get(rid)
                    if at is None or rid in seen_results:
                        continue  # answers no call made before it, or not the first result
                    if at == i:
                        own.append((at, i, j))
                        continue
                    seen_results.add(rid)
                    late.append((at, i, j))  # an assistant message's result moves wherever it is
            continue
        for j, p in enumerate(m.parts):
            if isinstance(p, ToolResult):
                rid = p.tool_call_id
                at = call_at.get(rid)
                if at is None or i <= at or rid in seen_results:
                    continue  # no call before it, or not the first result
                seen_results.add(rid)
                if i > at + 1 and (not merged_turns or any(messages[k].role != "assistant" for k in range(at + 1, i))):
                    late.append((at, i, j))  # (assistant messages alone between: one turn, when merged)
    if own:
        for at, i, j in own:
            rid = messages[i].parts[j].tool_call_id  # type: ignore[union-attr]
            if rid not in seen_results:
                seen_results.add(rid)
                late.append((at, i, j))
        late.sort(key=lambda x: (x[1], x[2]))
    return late


def place_late_results(
    messages: list[Message], merged_turns: bool = True
) -> tuple[list[Message], list[tuple[int, int, int]]]:
    """``messages`` with each result placed right after the call it answers, and the moves made
    (:func:`_late_results`: ``(call message, result message, part)`` indexes in ``messages``).

    Every API takes a call's result next to the call: OpenAI Chat wants the ``role: tool``
    messages right after the assistant message ("An assistant message with 'tool_calls' must be
    followed by tool messages responding to each 'tool_call_id'"), Gemini the function response
    turn right after the call turn ("Please ensure that function response turn comes
    immediately after a function call turn"), Anthropic the ``tool_result`` blocks in the next
    user message ("tool_use ids were found without tool_result blocks immediately after").
    A history in which other messages come between a call and its result — a user message
    typed while the tool ran, an assistant note — is sent with the result moved: first in the
    user message right after the call's (after the results already there), or in a new user
    message there when the next message is not a user message. A message the move leaves
    without parts is left out. The given messages are not changed (changed ones are copies);
    with nothing to move the same list is returned. ``merged_turns``: see :func:`_late_results`
    (every codec moves results across user messages, :func:`answer_request`; the Chat codec
    also across assistant messages, which Chat does not merge)."""
    late = _late_results(messages, merged_turns)
    if not late:
        return messages, []
    moving: dict[int, list[ToolResult]] = {}
    taken: set[tuple[int, int]] = set()
    for at, i, j in late:
        moving.setdefault(at, []).append(messages[i].parts[j])  # type: ignore[arg-type]
        taken.add((i, j))
    out: list[Message] = []
    for i, m in enumerate(messages):
        parts = m.parts
        if any(i == k for k, _ in taken):
            parts = [p for j, p in enumerate(m.parts) if (i, j) not in taken]
        incoming = moving.get(i - 1) if i > 0 and m.role == "user" else None
        if incoming:
            lead = [p for p in parts if isinstance(p, ToolResult)]
            rest = [p for p in parts if not isinstance(p, ToolResult)]
            parts = lead + incoming + rest
        if parts is not m.parts:
            if not parts:
                continue
            m = Message(m.role, list(parts), dict(m.provider_data))
        out.append(m)
        if i in moving and (i + 1 >= len(messages) or messages[i + 1].role != "user"):
            out.append(Message("user", list(moving[i])))
    return out, late


def moved_result_changes(messages: Sequence[Message], offset: int, merged_turns: bool = True) -> list[tuple[Any, ...]]:
    """The changes (``(rule, pointer, detail, tool, call_id, lossy)``, rule
    :data:`RESULT_MOVED_RULE`, not lossy) for the results of ``messages`` (numbered from
    ``offset``) that :func:`place_late_results` sends right after their calls. With
    ``merged_turns=False``, only the moves made across assistant messages alone (the ones
    ``merged_turns=True`` does not make)."""
    if len(messages) < 3 and not any(
        m.role == "assistant" and any(isinstance(p, ToolResult) for p in m.parts) for m in messages
    ):  # a call, a message between, its result: three messages at least, unless it sat in an assistant message
        return []
    out: list[tuple[Any, ...]] = []
    late = _late_results(messages, merged_turns)
    if late and not merged_turns:
        shared = set(_late_results(messages))
        late = [x for x in late if x not in shared]
    for at, i, j in late:
        r: Any = messages[i].parts[j]
        between = i - at - 1
        if messages[i].role == "assistant":
            where = "its call's own assistant message" if i == at else "an assistant message"
            detail = (
                f"the result for tool call {r.tool_call_id!r} sat in {where} and was sent in the user message "
                f"right after its call (message {at + offset}): no API takes a result from the model"
            )
        else:
            detail = (
                f"the result for tool call {r.tool_call_id!r} was sent right after its call (message "
                f"{at + offset}), not after the {between} message{'s' if between > 1 else ''} that came between "
                "them: every API takes a call's result next to the call"
            )
        out.append((RESULT_MOVED_RULE, f"/messages/{i + offset}/parts/{j}", detail, r.name, r.tool_call_id, False))
    return out


def plain_history(messages: Sequence[Message]) -> bool:
    """Whether ``messages`` is a *plain* history, which every built-in codec sends part for part
    as given (nothing left out, moved or answered for it): only user and assistant messages;
    assistant messages hold text and tool calls (each with a string id used by no other call),
    user messages text and tool results whose content is a string or text parts; and the
    results of each assistant message's calls, one per call, are in the user message right
    after it (a result answers a call of the message just before; no call is left unanswered).

    A cheap screen, one pass without a call per part: ``True`` lets the preflight skip the
    codecs' checks for parts they leave out or move (a codec says so with its
    ``plain_history_sent_whole``), which find nothing in such a history; ``False`` says only that those checks run. Reasoning,
    images and provider tool parts make a history not plain, and so does a user message an
    import marked as a system or developer message (:func:`marked_system_role`)."""
    pending: set[Any] | None = None
    seen: set[str] = set()
    for m in messages:
        role = m.role
        if role == "assistant":
            if pending:
                return False  # the calls before are not answered right after
            calls: set[Any] | None = None
            for p in m.parts:
                t = type(p)
                if t is ToolCall:
                    cid = p.id  # type: ignore[union-attr]
                    if type(cid) is not str or cid in seen:
                        return False
                    seen.add(cid)
                    if calls is None:
                        calls = {cid}
                    else:
                        calls.add(cid)
                elif t is not TextPart:
                    return False
            pending = calls
        elif role == "user":
            if m.provider_data and any(
                isinstance(d, dict) and d.get("role") in _SYSTEM_ROLES for d in m.provider_data.values()
            ):
                return False  # a system or developer message another API may send as a user's
            for p in m.parts:
                t = type(p)
                if t is ToolResult:
                    rid = p.tool_call_id  # type: ignore[union-attr]
                    if pending is None or type(rid) is not str or rid not in pending:
                        return False  # no call just before it, or answered already
                    pending.discard(rid)
                    content = p.content  # type: ignore[union-attr]
                    if type(content) is not str and (
                        type(content) is not list or any(type(c) is not TextPart for c in content)
                    ):
                        return False
                elif t is not TextPart:
                    return False
            if pending:
                return False
            pending = None
        else:
            return False
    return not pending


def answer_request(request: Any) -> tuple[Any, list[ToolCall]]:
    """A :class:`~toolwire.adapter.ModelRequest` whose unanswered tool calls are answered
    (:func:`answer_unanswered` on ``request.messages``), and the calls answered. Before that,
    reused call ids are renumbered (:func:`renumber_reused_ids`), results are placed right after
    their calls (:func:`place_late_results`) and the parts no API takes where they are are taken
    out (:func:`misplaced_changes`: a call in a user message and its results, a result in an
    assistant message answering no call before it). With nothing to change, ``request`` itself
    is returned (no copy); else a copy with the new messages. Every built-in codec calls it first
    in ``encode_request``, so a body encoded for any API answers and places such parts the same
    way."""
    messages = request.messages
    snapshot = tuple(messages)
    parts = tuple(map(len, map(_PARTS, snapshot)))
    last = _LAST_ANSWERED[0]
    if last is not None and last[0] is request and last[1] == snapshot and last[2] == parts:
        return request, []  # the same request checked just before (the model's preflight, then its codec)
    if not _may_be_unanswered(messages):
        _LAST_ANSWERED[0] = (request, snapshot, parts)
        return request, []
    renumbered, _ = renumber_reused_ids(messages)
    placed, _ = place_late_results(renumbered)
    out, done = answer_unanswered(_without_misplaced(placed))
    if out is messages:
        return request, []
    import dataclasses

    return dataclasses.replace(request, messages=out), done


def report_unanswered(report: Any, calls: list[ToolCall], pointer: str = "") -> Any:
    """Record in ``report`` (a :class:`~toolwire.profile.RequestReport`) one change per call of
    ``calls`` answered by :func:`answer_unanswered` (rule :data:`UNANSWERED_RULE`, at ``pointer``,
    the body's conversation list), before the changes already there. Returns ``report``."""
    from .profile import RequestChange

    changes = [
        RequestChange(
            UNANSWERED_RULE,
            pointer,
            f"tool call {c.id!r} had no result in the conversation: answered with an is_error result "
            "saying it was not run (the model may call the tool again)",
            c.name if isinstance(c.name, str) else None,
            c.id,
        )
        for c in calls
    ]
    report.changes[:0] = changes
    return report


#: The last request :func:`answer_request` found fully answered, with its messages and their part
#: counts: the same request asked about again right after (a model's preflight, then its codec's
#: ``encode_request``) with the same messages is not walked twice.
_LAST_ANSWERED: list[tuple[Any, tuple[Message, ...], tuple[int, ...]] | None] = [None]
_PARTS = attrgetter("parts")


def _without_misplaced(messages: list[Message]) -> list[Message]:
    """``messages`` without the parts :func:`misplaced_changes` reports, once results answering a
    call before them were placed after it (:func:`place_late_results`): calls in user messages and
    the results answering only those, and the results still in assistant messages (answering no
    call before them, or second results). A message left without parts is left out. Changed
    messages are copies; with nothing to take out the same list is returned."""
    user_calls = _user_call_ids(messages)
    out: list[Message] | None = None
    for i, m in enumerate(messages):
        assistant = m.role == "assistant"
        keep = [
            p
            for p in m.parts
            if not (
                (isinstance(p, ToolCall) and not assistant)
                or (isinstance(p, ToolResult) and (assistant or p.tool_call_id in user_calls))
            )
        ]
        if len(keep) == len(m.parts):
            if out is not None:
                out.append(m)
            continue
        if out is None:
            out = list(messages[:i])
        if keep:
            out.append(Message(m.role, keep, dict(m.provider_data)))
    return messages if out is None else out


def _may_be_unanswered(messages: list[Message]) -> bool:
    """Cheap test: ``False`` when every tool call id has a result somewhere, no id is used by
    two calls, no result sits further than the message right after its call's, and no call is in
    a user message nor any result in an assistant message (the common case)."""
    call_at: dict[str, int] = {}
    results: set[str] = set()
    n = 0
    for i, m in enumerate(messages):
        assistant = m.role == "assistant"
        for p in m.parts:
            if isinstance(p, ToolCall):
                if not assistant:
                    return True  # left out (_without_misplaced)
                call_at[p.id] = i
                n += 1
            elif isinstance(p, ToolResult):
                if assistant:
                    return True  # moved after its call, or left out
                rid = p.tool_call_id
                results.add(rid)
                at = call_at.get(rid)
                if at is not None and i > at + 1 and any(messages[k].role != "assistant" for k in range(at + 1, i)):
                    return True  # a result placed late (place_late_results)
    return n != len(call_at) or not results.issuperset(call_at)


def renumber_reused_ids(messages: list[Message]) -> tuple[list[Message], dict[str, list[str]]]:
    """``messages`` with each tool call whose id an earlier call already used — in an *earlier*
    assistant message (OpenAI-compatible servers number the calls of every response ``call_0``,
    ``call_1``, ...) or earlier in the *same* message (a hand-built or imported history, or a
    response that repeated an id) — given a new id (``<id>_t<index of its message>``, the same in
    every request of the growing conversation; ``_2``, ``_3`` ... appended if that is taken). The
    results after that assistant message (until a later assistant message uses the id again:
    another assistant message in between, empty or holding other calls, does not end it) that
    carry the old id are paired with its calls in order: the first such result answers the first
    call with the id, the second result the second call, and so on, and each is pointed at its
    call's id. Every API
    needs call ids unique in a request (Anthropic: "tool_use ids must be unique"); without this
    the later call and its result would not be sent. A call the decoder marked as repeating an id
    within its response (:func:`toolwire.wire.duplicate_id_invalid`) keeps its id: it was never
    run, and the encoders leave it out with its error result. Changed messages are copies; with
    nothing to renumber the same list is returned. Also returns ``{old id: [new ids]}``."""
    all_ids = {p.id for m in messages for p in m.parts if isinstance(p, ToolCall)}
    all_ids |= {p.tool_call_id for m in messages for p in m.parts if isinstance(p, ToolResult)}
    seen: set[str] = set()
    out: list[Message] | None = None
    renamed: dict[str, list[str]] = {}
    # old id -> the ids its results take, in order, for the results after the current assistant message
    pending: dict[str, list[str]] = {}
    for i, m in enumerate(messages):
        if m.role == "assistant":
            queues: dict[str, list[str]] = {}
            here: set[str] = set()
            new_parts = None
            for j, p in enumerate(m.parts):
                if not isinstance(p, ToolCall):
                    continue
                final = p.id
                if p.id in here and p.invalid == duplicate_id_invalid(p.id):
                    continue  # the decoder's mark: left out with its error result by the encoders
                if p.id in seen or p.id in here:
                    # named after the message's position, so the same call keeps the same new id
                    # in every later request of the conversation (a prompt cache still matches)
                    new_id, k = f"{p.id}_t{i}", 2
                    while new_id in all_ids:
                        new_id, k = f"{p.id}_t{i}_{k}", k + 1
                    all_ids.add(new_id)
                    final = new_id
                    renamed.setdefault(p.id, []).append(new_id)
                    if new_parts is None:
                        new_parts = list(m.parts)
                    c = copy.copy(p)
                    c.id = new_id
                    new_parts[j] = c
                here.add(p.id)
                queues.setdefault(p.id, []).append(final)
            seen |= here
            # the results of this message's calls: an id it uses is paired from here on with
            # this message's calls; the other ids keep theirs (an assistant message between a
            # call and its result, empty or holding other calls, ends no pairing)
            for old, q in queues.items():
                if q != [old]:
                    pending[old] = q
                else:
                    pending.pop(old, None)
            if new_parts is not None:
                if out is None:
                    out = list(messages)
                out[i] = Message(m.role, new_parts, dict(m.provider_data))
        elif pending:
            new_parts = None
            for j, p in enumerate(m.parts):
                if isinstance(p, ToolResult) and p.tool_call_id in pending:
                    q = pending[p.tool_call_id]
                    target = q.pop(0)
                    if not q:
                        del pending[p.tool_call_id]
                    if target == p.tool_call_id:
                        continue
                    if new_parts is None:
                        new_parts = list(m.parts)
                    r = copy.copy(p)
                    r.tool_call_id = target
                    new_parts[j] = r
            if new_parts is not None:
                if out is None:
                    out = list(messages)
                out[i] = Message(m.role, new_parts, dict(m.provider_data))
    return (out if out is not None else messages), renamed
