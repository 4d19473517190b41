"""Whose fault is it: how each answer reached the client, beside whether it was right.

`serving_verdict(result)` classes a result by what a client reading only `tool_calls`
would have received (`ServingClass`: three clean classes, six faults); `delivered`
says whether every call the model made arrived as structured calls, which is what
passing *as served* adds to passing; `parser_hint` names the server flag that would
parse a format found in the text; `compare_answers` and `stream_check` tell a streamed
answer from a whole one as a client receives them. Split by responsibility: `_classes`
(the classes), `_classify` (the verdict of one answer and of a result), `_hints` (server
flags), `_stream` (streamed and whole answers compared).
"""

from toolgrade.serving._classes import CLEAN, FAULTS, ServingClass
from toolgrade.serving._classify import (
    CALL_PREFIX,
    REASONING_FIELDS,
    STRUCTURED_FORMATS,
    Answer,
    ServingVerdict,
    classify_answer,
    delivered,
    serving_verdict,
)
from toolgrade.serving._hints import SERVER_FIXES, parser_hint, server_of
from toolgrade.serving._stream import (
    Asked,
    compare_answers,
    served,
    stream_check,
    stream_summary,
)

__all__ = [
    "Answer",
    "Asked",
    "CALL_PREFIX",
    "CLEAN",
    "FAULTS",
    "REASONING_FIELDS",
    "SERVER_FIXES",
    "STRUCTURED_FORMATS",
    "ServingClass",
    "ServingVerdict",
    "classify_answer",
    "compare_answers",
    "delivered",
    "parser_hint",
    "served",
    "server_of",
    "serving_verdict",
    "stream_check",
    "stream_summary",
]
