"""The serving classes: how a model's answer reached the client, named once.

A result has a *model* verdict (were its calls right, read from wherever the model put
them) and a *serving* verdict (did a client that reads only `tool_calls` get them). The
serving verdict is one of the classes below; three are clean (nothing was lost between
the model and the client), the others are faults, each with a cause a user can act on.
"""

from __future__ import annotations

from enum import StrEnum

__all__ = ["CLEAN", "FAULTS", "ServingClass"]


class ServingClass(StrEnum):
    """How one answer reached the client (docs/serving.md has a real example of each)."""

    STRUCTURED = "structured"
    """Clean: the calls came as structured `tool_calls` (or a legacy `function_call`)."""
    TEXT_ONLY = "text_only"
    """Clean: no call, a text answer, and no call hidden anywhere in it."""
    PROMPTED = "prompted"
    """Clean: prompt mode (or an output that is text by nature): calls are read from
    the text, as the prompt asked, so there is no `tool_calls` channel to miss."""
    CALLS_IN_TEXT = "calls_in_text"
    """Fault: the calls are only in the message's text: the server's tool-call parser
    missed them, or it has none for this model. A client reading `tool_calls` gets none."""
    CALLS_IN_REASONING = "calls_in_reasoning"
    """Fault: the calls are only in the reasoning field (`reasoning_content`,
    `reasoning`, `thinking`): the server's reasoning parser took them for thought."""
    MALFORMED_CALL = "malformed_call"
    """Fault: a structured call a client cannot use: arguments that are not a JSON
    object, no function name, two calls with one id."""
    TRUNCATED = "truncated"
    """Fault: the answer was cut at the token limit (`finish_reason: length`)."""
    EMPTY = "empty"
    """Fault: nothing came back: no call and no text (an HTTP 200 with
    `tool_calls: []` and no content is the classic swallowed call)."""
    REQUEST_FAILED = "request_failed"
    """Fault: no answer at all: the request failed or timed out (the result's status
    is `error` or `timeout`)."""

    @property
    def clean(self) -> bool:
        """Whether nothing was lost between the model and the client."""
        return self in CLEAN


CLEAN: frozenset[ServingClass] = frozenset(
    (ServingClass.STRUCTURED, ServingClass.TEXT_ONLY, ServingClass.PROMPTED)
)
"""The classes where the client got what the model said."""

FAULTS: tuple[ServingClass, ...] = tuple(c for c in ServingClass if c not in CLEAN)
"""The fault classes, in the order reports list them."""
