"""Shared by the experiment tests: the shipped example and its expected scoreboard."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "sensor_experiment"
SPEC = EXAMPLE / "sensor.toml"
MODEL = "scripted:claude-sonnet-4-5"

# The example's nine runs (3 layers × 3 runs) on the scripted agent, per run:
# (layer, index): (turns, tool calls, tool errors, input tokens, output tokens, cost in USD).
# The agent reads the CSV whole when the listing shows bare names (and once more on odd runs),
# searches it when the listing shows its size; every third run misquotes its first edit.
RUNS = {
    ("bare-names", 0): (6, 7, 0, 55561, 290, Decimal("0.171033")),
    ("bare-names", 1): (7, 8, 0, 120909, 319, Decimal("0.367512")),
    ("bare-names", 2): (7, 8, 1, 73316, 387, Decimal("0.225753")),
    ("byte-sizes", 0): (6, 7, 0, 8999, 310, Decimal("0.031647")),
    ("byte-sizes", 1): (6, 7, 0, 8999, 310, Decimal("0.031647")),
    ("byte-sizes", 2): (7, 8, 1, 11227, 407, Decimal("0.039786")),
    ("file-kit", 0): (6, 7, 0, 9736, 310, Decimal("0.033858")),
    ("file-kit", 1): (6, 7, 0, 9736, 310, Decimal("0.033858")),
    ("file-kit", 2): (7, 8, 1, 12098, 407, Decimal("0.042399")),
}

# Claude Sonnet 4.5 list prices (https://www.anthropic.com/pricing#api): $3 per million input
# tokens, $15 per million output tokens — the independent check of the recorded costs.
INPUT_USD_PER_MTOK = Decimal(3)
OUTPUT_USD_PER_MTOK = Decimal(15)


def list_price(input_tokens: int, output_tokens: int) -> Decimal:
    return (input_tokens * INPUT_USD_PER_MTOK + output_tokens * OUTPUT_USD_PER_MTOK) / Decimal(1_000_000)


def scoreboard_numbers(cells) -> dict:
    """The scoreboard as plain exact values, keyed by layer."""
    return {
        c.layer: (
            c.model,
            c.runs,
            c.passed,
            c.turns,
            c.tool_errors,
            c.output_tokens,
            c.input_tokens_median,
            c.input_tokens_min,
            c.input_tokens_max,
            c.cost_median,
            c.cost_min,
            c.cost_max,
        )
        for c in cells
    }


EXPECTED_SCOREBOARD = {
    "bare-names": (
        MODEL,
        3,
        3,
        Fraction(20, 3),
        Fraction(1, 3),
        Fraction(332),
        Fraction(73316),
        55561,
        120909,
        Decimal("0.225753"),
        Decimal("0.171033"),
        Decimal("0.367512"),
    ),
    "byte-sizes": (
        MODEL,
        3,
        3,
        Fraction(19, 3),
        Fraction(1, 3),
        Fraction(1027, 3),
        Fraction(8999),
        8999,
        11227,
        Decimal("0.031647"),
        Decimal("0.031647"),
        Decimal("0.039786"),
    ),
    "file-kit": (
        MODEL,
        3,
        3,
        Fraction(19, 3),
        Fraction(1, 3),
        Fraction(1027, 3),
        Fraction(9736),
        9736,
        12098,
        Decimal("0.033858"),
        Decimal("0.033858"),
        Decimal("0.042399"),
    ),
}
