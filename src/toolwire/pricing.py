"""What a run cost, in US dollars, from the maintained ``genai-prices`` data.

``toolwire.pricing.price(usage, "anthropic:claude-sonnet-4-5")`` prices one response's
:class:`~toolwire.types.Usage`; ``RunResult.cost`` prices every turn of a run and attributes a
share to each tool call. Prices come from the `genai-prices <https://github.com/pydantic/genai-prices>`_
package (the same data pydantic-ai uses): the snapshot bundled with the installed version, or a newer
one fetched with :func:`update_prices` — no toolwire release needed.

Token meaning (the same on every vendor, see ``Usage``): ``input_tokens`` counts every input token,
cache reads and cache writes included; ``output_tokens`` counts reasoning too. genai-prices reads
usage the same way, so cache reads are billed at the cache-read rate, cache writes at the cache-write
rate and the rest of the input at the input rate. A price that depends on the size of the request
(Anthropic and Gemini prompts past 200k tokens) uses the tier of that request's input tokens.

A model the price data does not know is **unpriced** (``Cost.priced`` is ``False`` and every
amount is ``None``) — never free. Amounts are ``decimal.Decimal`` dollars.

Attribution to tool calls: a tool result is paid for in every later request of the run, because
each later request sends it again. Its size in tokens is measured from the vendor's own counts:
the input of the request that first carried the results, minus the input and output of the
request before it, is what that turn's tool results added; it is split across the turn's results
by the length of their text. Each later request then bills those tokens at its own average input
rate (its input cost divided by its input tokens, so cache discounts count). ``ToolCost`` holds the
tokens and the dollars per tool call; the whole run's input cost is larger, since it also pays for
the prompt, the instructions and the tool definitions.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING, Any, Mapping

if TYPE_CHECKING:  # pragma: no cover
    from .loop import RunResult
    from .types import Usage

__all__ = [
    "Cost",
    "RunCost",
    "ToolCost",
    "not_billed",
    "price",
    "price_turn",
    "run_cost",
    "update_prices",
    "prices_source",
]

_MTOK = Decimal(1_000_000)


@dataclass(frozen=True)
class Cost:
    """The price of some usage, in US dollars (``Decimal``).

    - ``input_usd``: all input tokens as billed (cache reads and writes included);
    - ``cache_read_usd`` / ``cache_write_usd``: the parts of ``input_usd`` paid for cache reads
      and cache writes;
    - ``output_usd``: output tokens (reasoning included); ``total_usd``: input + output;
    - ``model``: the model the price data matched (e.g. ``claude-sonnet-4-5``);
    - ``priced``: ``False`` when the price data does not know the model — every amount is then
      ``None`` and ``reason`` says why. An unpriced cost is never reported as free;
    - ``reason``: why the cost is unpriced, or why a priced cost of ``0`` is free (a response the
      vendor does not bill, see :func:`not_billed`); else ``None``.
    """

    input_usd: Decimal | None
    output_usd: Decimal | None
    cache_read_usd: Decimal | None
    cache_write_usd: Decimal | None
    total_usd: Decimal | None
    model: str | None = None
    priced: bool = True
    reason: str | None = None

    @classmethod
    def unpriced(cls, reason: str) -> Cost:
        """An unpriced cost: ``priced=False``, every amount and ``model`` ``None``, ``reason`` saying
        why. Added to any cost it gives an unpriced cost (never a free one)."""
        return cls(None, None, None, None, None, None, False, reason)

    @classmethod
    def zero(cls) -> Cost:
        """A priced cost of ``Decimal(0)`` US dollars in every amount, ``model`` ``None``: the start of
        a sum."""
        z = Decimal(0)
        return cls(z, z, z, z, z)

    def __add__(self, other: Cost) -> Cost:
        if not isinstance(other, Cost):
            return NotImplemented
        if not (self.priced and other.priced):
            return Cost.unpriced(self.reason or other.reason or "part of the usage is unpriced")

        def add(a: Decimal | None, b: Decimal | None) -> Decimal:
            return (a or Decimal(0)) + (b or Decimal(0))

        same = self.model is None or other.model is None or self.model == other.model
        model = (self.model or other.model) if same else None  # None: several models
        return Cost(
            add(self.input_usd, other.input_usd),
            add(self.output_usd, other.output_usd),
            add(self.cache_read_usd, other.cache_read_usd),
            add(self.cache_write_usd, other.cache_write_usd),
            add(self.total_usd, other.total_usd),
            model,
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: amounts as decimal strings (exact), ``None`` when unpriced."""

        def s(v: Decimal | None) -> str | None:
            return None if v is None else str(v)

        d: dict[str, Any] = {
            "priced": self.priced,
            "input_usd": s(self.input_usd),
            "output_usd": s(self.output_usd),
            "cache_read_usd": s(self.cache_read_usd),
            "cache_write_usd": s(self.cache_write_usd),
            "total_usd": s(self.total_usd),
            "model": self.model,
        }
        if self.reason:
            d["reason"] = self.reason
        return d


@dataclass(frozen=True)
class ToolCost:
    """What one tool call's result cost the rest of the run (see the module docs): ``tokens`` it
    added to each later request (``None`` when the vendor reported no input token count for the
    request before or after it), ``requests`` that re-sent it, and ``usd`` (``None`` when a later
    request is unpriced or ``tokens`` is unknown)."""

    tool_call_id: str
    name: str
    tokens: int | None
    requests: int
    usd: Decimal | None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: ``{"tool_call_id": str, "name": str, "tokens": int or null, "requests": int,
        "usd": str or null}``, ``usd`` in US dollars as an exact decimal string."""
        return {
            "tool_call_id": self.tool_call_id,
            "name": self.name,
            "tokens": self.tokens,
            "requests": self.requests,
            "usd": None if self.usd is None else str(self.usd),
        }


@dataclass(frozen=True)
class RunCost:
    """A run's cost: ``turns`` (one :class:`Cost` per model request, in order), ``total`` (their
    sum; unpriced if any turn is), ``priced_usd`` (the sum of the priced turns alone) and
    ``tool_calls`` (one :class:`ToolCost` per tool call that has a result)."""

    turns: list[Cost]
    total: Cost
    priced_usd: Decimal
    tool_calls: list[ToolCost] = field(default_factory=list)

    @property
    def unpriced_turns(self) -> int:
        return sum(1 for c in self.turns if not c.priced)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: ``{"total": object, "priced_usd": str, "unpriced_turns": int, "turns": [objects],
        "tool_calls": [objects]}`` (each :class:`Cost` and :class:`ToolCost` by its ``to_dict()``),
        ``priced_usd`` in US dollars as an exact decimal string."""
        return {
            "total": self.total.to_dict(),
            "priced_usd": str(self.priced_usd),
            "unpriced_turns": self.unpriced_turns,
            "turns": [c.to_dict() for c in self.turns],
            "tool_calls": [t.to_dict() for t in self.tool_calls],
        }


def _provider_id(provider: str) -> str | None:
    """The genai-prices provider id for a toolwire provider, from the adapter's profile
    (``Profile.pricing_provider``); ``None`` lets genai-prices choose by the model name."""
    try:
        from .registry import profile

        return getattr(profile(provider), "pricing_provider", None)
    except Exception:
        return None


def turn_model(model: str, response: Any) -> str | None:
    """What to price ``response`` as, in a run of ``model`` (``"provider:model-id"``): ``None``
    for the run's own model, or ``"<api>:<model>"`` when the response came from an API billed by
    another vendor (``Response.provider``; a run saved on Anthropic and resumed on OpenAI keeps
    its Anthropic turns, billed at Anthropic's price)."""
    api = getattr(response, "provider", None)
    run_provider = model.partition(":")[0].strip() if isinstance(model, str) and ":" in model else ""
    if not isinstance(api, str) or not api or not run_provider or api == run_provider:
        return None
    theirs, ours = _provider_id(api), _provider_id(run_provider)
    if theirs is None or ours is None or theirs == ours:
        return None
    return f"{api}:{getattr(response, 'model', None) or ''}"


def _tier_rate(value: Any, input_tokens: int) -> Decimal:
    """A genai-prices per-million rate (``Decimal`` or tiered) at a request of ``input_tokens``."""
    if value is None:
        return Decimal(0)
    if isinstance(value, Decimal):
        return value
    rate = value.base
    for tier in value.tiers:  # cliff pricing: past a threshold the whole request pays that rate
        if input_tokens > tier.start:
            rate = tier.price
    return rate


def price(
    usage: Usage,
    model: str,
    *,
    base_url: str | None = None,
    served_model: str | None = None,
    timestamp: Any = None,
    processing: str | None = None,
    price_context: Mapping[str, str] | None = None,
) -> Cost:
    """Price ``usage`` for ``model`` (``"provider:model-id"``, or a bare model id).

    ``served_model``: the model id the vendor answered with (``Response.model``, e.g. a dated
    snapshot), tried first. ``base_url``: a custom endpoint (e.g. a local OpenAI-compatible
    server); genai-prices then matches the provider by that URL and a server it does not know
    leaves the usage unpriced. ``timestamp``: when the request was made (prices change over time;
    default now). ``processing``: ``"batch"`` prices a request sent through a vendor batch API
    at the batch rate genai-prices records for the model (its ``processing: batch`` price
    variant; the standard price where it records none). Cache writes made with a one-hour TTL
    (``usage.cache_write_1h_tokens``, a part of ``cache_write_tokens``) are priced at the
    model's 1-hour cache-write rate (Anthropic bills them at twice the input rate, 5-minute
    writes at 1.25 times). ``price_context``: how the vendor served the request, where that
    changes the price, as genai-prices names it (``{"speed": "fast"}`` for Anthropic fast mode,
    ``{"service_tier": "flex"}`` or ``"priority"`` for OpenAI's service tiers; the adapters
    record it on each response, see :func:`response_price_context`). Returns an unpriced :class:`Cost` for a model the data does not
    know, and for usage without token counts or with counts that contradict each other.
    """
    if not isinstance(model, str):
        return Cost.unpriced(f"the model must be a 'provider:model-id' string, got {type(model).__name__}")
    provider, _, model_id = model.partition(":") if ":" in model else ("", "", model)
    provider, model_id = provider.strip(), model_id.strip()  # "anthropic: claude-x", as toolwire.model reads it
    if not provider and model_id in ("test", "scripted"):  # the offline providers' bare names
        provider, model_id = model_id, ""
    if provider == "scripted" and not model_id:
        return Cost.unpriced(
            "the offline 'scripted' provider has no price (name it after a vendor model, as "
            "'scripted:claude-sonnet-4-5', and give its answers a usage, to price them as that model's)"
        )
    if provider == "test" and not model_id:
        return Cost.unpriced("the offline 'test' provider has no price")
    if usage.input_tokens is None and usage.output_tokens is None:
        return Cost.unpriced("the vendor reported no token counts")
    if usage.input_tokens is None or usage.output_tokens is None:
        which = "input" if usage.input_tokens is None else "output"
        return Cost.unpriced(f"the vendor reported no {which} token count")
    counts = {
        k: getattr(usage, k, None)
        for k in ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens", "cache_write_1h_tokens")
    }
    bad = {
        k: v for k, v in counts.items() if v is not None and (not isinstance(v, int) or isinstance(v, bool) or v < 0)
    }
    if bad:
        return Cost.unpriced(f"token counts that are not whole numbers ≥ 0: {bad}")
    if (usage.cache_read_tokens or 0) + (usage.cache_write_tokens or 0) > usage.input_tokens:
        return Cost.unpriced(
            f"cache reads and writes ({(usage.cache_read_tokens or 0) + (usage.cache_write_tokens or 0)}) "
            f"exceed the input tokens ({usage.input_tokens})"
        )
    hour = int(counts["cache_write_1h_tokens"] or 0)
    if hour > (usage.cache_write_tokens or 0):
        return Cost.unpriced(
            f"one-hour cache writes ({hour}) exceed the cache writes ({usage.cache_write_tokens or 0})"
        )
    from genai_prices import Usage as PriceUsage
    from genai_prices import calc_price

    inp = int(usage.input_tokens or 0)
    cr = int(usage.cache_read_tokens or 0)
    cw = int(usage.cache_write_tokens or 0)
    pu = PriceUsage(
        input_tokens=inp,
        output_tokens=int(usage.output_tokens or 0),
        cache_read_tokens=cr or None,
        cache_write_tokens=cw or None,
    )
    if hour:  # genai-prices counts these inside cache_write_tokens, at its cache_write_1h_mtok rate
        pu.cache_write_1h_tokens = hour
    options: dict[str, Any] = {"genai_request_timestamp": timestamp}
    context = {str(k): str(v) for k, v in (price_context or {}).items() if isinstance(v, str)}
    if processing:
        context["processing"] = processing
    if context:
        options["price_context"] = context
    if base_url:
        options["provider_api_url"] = base_url
    else:
        pid = _provider_id(provider) if provider else None
        if pid:
            options["provider_id"] = pid
    last: Exception | None = None
    for ref in dict.fromkeys(r for r in (served_model, model_id) if r):
        try:
            calc = calc_price(pu, ref, **options)
        except LookupError as exc:
            last = exc
            continue
        except (ValueError, TypeError, ArithmeticError) as exc:  # usage the price data cannot take
            return Cost.unpriced(f"the price data could not price this usage: {exc}")
        mp = calc.model_price
        read = Decimal(cr) * _tier_rate(getattr(mp, "cache_read_mtok", None), inp) / _MTOK if cr else Decimal(0)
        write = (
            Decimal(cw - hour) * _tier_rate(getattr(mp, "cache_write_mtok", None), inp) / _MTOK if cw else Decimal(0)
        )
        if hour:
            hour_rate = getattr(mp, "cache_write_1h_mtok", None)
            if hour_rate is None:  # the data has no 1-hour rate: genai-prices charged the 5-minute one
                hour_rate = getattr(mp, "cache_write_mtok", None)
            write += Decimal(hour) * _tier_rate(hour_rate, inp) / _MTOK
        return Cost(calc.input_price, calc.output_price, read, write, calc.total_price, calc.model.id)
    where = f" at {base_url}" if base_url else ""
    return Cost.unpriced(
        f"the price data has no model {model_id!r}{where} ({last})" if last else f"no price for {model!r}"
    )


def _result_chars(run: Any) -> int:
    content = run.result.content
    if isinstance(content, str):
        return len(content)
    return sum(len(getattr(p, "text", "") or "") or 1000 for p in content)  # an image: a nominal share


def response_price_context(response: Any) -> dict[str, str] | None:
    """How the vendor served ``response`` where that changes its price (the ``price_context``
    an adapter records in ``provider_data[<api>]``: Anthropic ``usage.speed`` ``"fast"``,
    OpenAI ``service_tier`` ``"flex"``/``"priority"``), merged; ``None`` when none is recorded."""
    pd = getattr(response, "provider_data", None)
    out: dict[str, str] = {}
    if isinstance(pd, dict):
        for own in pd.values():
            ctx = own.get("price_context") if isinstance(own, dict) else None
            if isinstance(ctx, dict):
                out.update({k: v for k, v in ctx.items() if isinstance(k, str) and isinstance(v, str)})
    return out or None


def not_billed(response: Any) -> str | None:
    """Why the vendor does not bill ``response``, as its adapter recorded it
    (``provider_data[<api>]["not_billed"]``, a sentence; e.g. the Claude API does not bill a
    request refused before any output), else ``None``."""
    pd = getattr(response, "provider_data", None)
    own = pd.get(getattr(response, "provider", None)) if isinstance(pd, dict) else None
    reason = own.get("not_billed") if isinstance(own, dict) else None
    return reason if isinstance(reason, str) and reason else None


def price_turn(response: Any, model: str, *, base_url: str | None = None, processing: str | None = None) -> Cost:
    """Price one ``response`` of a run of ``model``: as the model the vendor answered with, at the
    rate it was served at; a response from another vendor's API (a resumed run that changed
    provider) as that vendor's model, without the run's ``base_url``. A response the vendor does
    not bill (:func:`not_billed`) costs ``Decimal(0)`` in every amount, priced, with ``reason``
    saying why (its usage is still reported)."""
    free = not_billed(response)
    if free is not None:
        z = Decimal(0)
        return Cost(z, z, z, z, z, getattr(response, "model", None), True, free)
    other = turn_model(model, response)
    return price(
        response.usage,
        other or model,
        base_url=None if other else base_url,
        served_model=None if other else response.model,
        processing=processing,
        price_context=response_price_context(response),
    )


def run_cost(result: RunResult, *, base_url: str | None = None, processing: str | None = None) -> RunCost:
    """Price every turn of ``result`` and attribute a cost to each tool call (module docs).
    ``processing="batch"``: the turns went through a vendor batch API (see :func:`price`)."""
    turns = list(result.turns)
    costs = [price_turn(t.response, result.model, base_url=base_url, processing=processing) for t in turns]
    total = Cost.zero()
    priced = Decimal(0)
    for c in costs:
        total = total + c
        if c.priced and c.total_usd is not None:
            priced += c.total_usd
    if not turns:
        total = Cost.zero()
    # per tool call: tokens each result added, billed at every later request's own input rate.
    # A turn whose request failed counts no tokens and its request never carried on the
    # conversation (its partial answer is not in it): the results are measured against the next
    # turn that answered.
    tool_costs: list[ToolCost] = []
    for i, turn in enumerate(turns[:-1]):
        runs = list(turn.tool_runs)
        if not runs:
            continue
        j = i + 1
        while j < len(turns) and turns[j].interrupted == "failed":
            j += 1
        if j == len(turns):  # no request answered after these results (as after the last turn's)
            continue
        nxt, cur = turns[j].response.usage, turn.response.usage
        if nxt.input_tokens is None or cur.input_tokens is None:
            # the vendor gave no input count around these results: their cost is not known (not 0)
            tool_costs.extend(ToolCost(r.call.id, r.call.name, None, len(turns) - i - 1, None) for r in runs)
            continue
        else:
            # the next request carries this turn's input, its visible output and the results;
            # reasoning tokens are billed as output but not sent back as input (OpenAI discards
            # them from the context, Anthropic strips earlier thinking), so they are not subtracted
            visible = (cur.output_tokens or 0) - (cur.reasoning_tokens or 0)
            added = max(0, nxt.input_tokens - cur.input_tokens - max(0, visible))
        chars = [_result_chars(r) for r in runs]
        whole = sum(chars) or 1
        shares = [added * c // whole for c in chars]
        shares[-1] += added - sum(shares)  # integer split that adds up exactly
        later = [(t, c) for t, c in zip(turns[i + 1 :], costs[i + 1 :]) if t.interrupted != "failed"]
        for run, tokens in zip(runs, shares):
            usd: Decimal | None = Decimal(0)
            for t, c in later:
                inp = t.response.usage.input_tokens or 0
                if not c.priced or c.input_usd is None:
                    usd = None
                    break
                if inp:
                    usd += Decimal(tokens) * c.input_usd / Decimal(inp)
            tool_costs.append(ToolCost(run.call.id, run.call.name, tokens, len(later), usd))
    return RunCost(costs, total, priced, tool_costs)


def prices_source() -> str:
    """Where the prices in use come from: ``"genai-prices <version> (bundled)"`` or
    ``"genai-prices <version> (updated <UTC time>)"`` after :func:`update_prices`."""
    import genai_prices
    from genai_prices import data_snapshot

    snap = data_snapshot.get_snapshot()
    if getattr(snap, "from_auto_update", False):
        when = getattr(snap, "timestamp", None)
        return f"genai-prices {genai_prices.__version__} (updated {when})"
    return f"genai-prices {genai_prices.__version__} (bundled)"


def update_prices(url: str | None = None, *, timeout: float = 30.0) -> str:
    """Fetch the newest price data once and use it in this process from now on (genai-prices'
    own update mechanism, ``genai_prices.UpdatePrices``). ``url``: where to fetch the data from
    (default: the genai-prices project's published data file). Returns :func:`prices_source`.
    Raises :class:`~toolwire.errors.ConfigurationError` when the data cannot be fetched or read."""
    from genai_prices import UpdatePrices

    from .errors import ConfigurationError

    kwargs: dict[str, Any] = {"update_interval": 10**9}
    if url:
        kwargs["url"] = url
    updater = UpdatePrices(**kwargs)
    updater.start()
    try:
        try:
            updated = updater.wait(timeout)
        except Exception as exc:
            raise ConfigurationError(
                f"could not update prices from {url or 'the genai-prices data file'}: {type(exc).__name__}: {exc}"
            ) from exc
        if not updated:
            raise ConfigurationError(
                f"could not update prices from {url or 'the genai-prices data file'} within {timeout:g} s"
            )
    finally:
        updater.stop()
    return prices_source()
