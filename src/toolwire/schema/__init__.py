"""Schema tools: input schemas from signatures, validation, and the translation report.

Vendor dialects are data the adapters pass in; nothing here imports a vendor SDK.
``jsonschema`` and ``pydantic`` load on first use, not at ``import toolwire``.
"""

from __future__ import annotations

from .report import SchemaChange, TranslationReport
from .validate import check_input_schema, validate_arguments

__all__ = ["SchemaChange", "TranslationReport", "check_input_schema", "validate_arguments"]
