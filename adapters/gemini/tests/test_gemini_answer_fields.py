"""Answer fields toolwire has no canonical home for, kept in ``Response.provider_data["gemini"]``
(real SDK, MockTransport network): what a request setting asked the API to report."""

from __future__ import annotations

import json

import httpx2
import pytest
from test_gemini_continuation import _answer, _hop

import toolwire


@pytest.mark.parametrize("stream", [False, True])
def test_logprobs_are_kept(mock_model, stream) -> None:
    """``candidates[0].logprobsResult`` (``google.genai.types.LogprobsResult``), what the
    ``responseLogprobs`` setting asks for, kept in ``provider_data["gemini"]``; streamed, each
    chunk's decoding steps are joined in order and ``logProbabilitySum`` added up. Before, it was
    dropped."""
    steps = [
        {"token": "Hel", "tokenId": 1, "logProbability": -0.1},
        {"token": "lo.", "tokenId": 2, "logProbability": -0.2},
    ]
    tops = [{"candidates": [steps[0]]}, {"candidates": [steps[1]]}]
    body = _hop([{"text": "Hel"}, {"text": "lo."}], "STOP", (3, 2))
    if stream:
        answer = _answer(body, stream=True)
        chunks = [json.loads(line[len("data: ") :]) for line in answer.text.split("\r\n\r\n") if line]
        for i, c in enumerate(chunks):
            c["candidates"][0]["logprobsResult"] = {
                "chosenCandidates": steps[i : i + 1],
                "topCandidates": tops[i : i + 1],
                "logProbabilitySum": steps[i]["logProbability"],
            }
        text = "".join(f"data: {json.dumps(c)}\r\n\r\n" for c in chunks)
        answer = httpx2.Response(200, headers={"content-type": "text/event-stream"}, text=text)
    else:
        body["candidates"][0]["logprobsResult"] = {
            "chosenCandidates": steps,
            "topCandidates": tops,
            "logProbabilitySum": -0.3,
        }
        answer = _answer(body, stream=False)
    model = mock_model([answer], stream=stream, generationConfig={"responseLogprobs": True})
    result = toolwire.run_sync(model, "hi")
    assert result.text == "Hello."
    kept = result.turns[0].response.provider_data["gemini"]["logprobsResult"]
    assert kept["chosenCandidates"] == steps and kept["topCandidates"] == tops
    assert kept["logProbabilitySum"] == pytest.approx(-0.3)


@pytest.mark.parametrize("stream", [False, True])
def test_the_transcription_of_an_audio_answer_is_its_text(mock_model, stream) -> None:
    """An audio answer's ``audioTranscription`` ("Output only. The transcription of the audio
    part", ``google.genai.types.Part.audio_transcription``, asked for with
    ``audioTranscriptionConfig``) is the answer's text, as the Chat adapter reads an audio
    answer's transcript; the part still goes back exactly as it came. Before, the run's text was
    empty."""
    audio = {
        "inlineData": {"mimeType": "audio/L16;codec=pcm;rate=24000", "data": "AAAAAAAA"},
        "audioTranscription": {"text": "It is 12 degrees in Paris.", "finished": True},
    }
    first = _hop([audio], "STOP", (3, 20))
    second = _hop([{"text": "ok"}], "STOP", (30, 1))
    model = mock_model([_answer(first, stream), _answer(second, stream=False)], stream=stream)
    result = toolwire.run_sync(model, "say the weather")
    assert result.text == "It is 12 degrees in Paris."
    toolwire.run_sync(model, "again", conversation=result.conversation)
    assert model.sent[1].json["contents"][1] == {"role": "model", "parts": [audio]}


@pytest.mark.parametrize("stream", [False, True])
def test_the_model_status_is_kept(mock_model, stream) -> None:
    """``modelStatus`` (``google.genai.types.ModelStatus``: the model's stage and the time it will
    be retired) is kept in ``provider_data["gemini"]``, where a user can see that the model goes
    away; before, it was dropped."""
    status = {"modelStage": "DEPRECATED", "retirementTime": "2027-01-31T00:00:00Z", "message": "use gemini-3-flash"}
    body = {**_hop([{"text": "Hi."}], "STOP", (3, 2)), "modelStatus": status}
    if stream:  # one chunk: the whole body, as an event
        answer = httpx2.Response(
            200, headers={"content-type": "text/event-stream"}, text=f"data: {json.dumps(body)}\r\n\r\n"
        )
    else:
        answer = _answer(body, stream=False)
    model = mock_model([answer], stream=stream)
    result = toolwire.run_sync(model, "hi")
    assert result.text == "Hi."
    assert result.turns[0].response.provider_data["gemini"]["modelStatus"] == status
