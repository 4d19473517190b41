"""What the model did: call a tool, ask the user, refuse, or answer.

`classify_reply` reads one reply (its calls, its malformed calls, its text) into a
`Decision` by a transparent rule set, and abstains (`unclassified`) rather than guess:
on empty text, a language the rules do not know, echoes, loops, and conflicting
signals. `decision_of` reads a single case's result, `turn_decision` a conversation's
turn. Split by responsibility: `_kinds` (the decisions and the verdict), `_language`
(which known language a reply is in), `_phrases` (what each rule looks for, per
language), `_rules` (the rules over the text), `_classify` (replies, results, turns).
docs/decisions.md lists the rules.
"""

from toolgrade.decision._classify import classify_reply, decision_of, reply_text, turn_decision
from toolgrade.decision._kinds import Decision, DecisionVerdict
from toolgrade.decision._language import LANGUAGES, detect_language
from toolgrade.decision._rules import SCANNED

__all__ = [
    "Decision",
    "DecisionVerdict",
    "LANGUAGES",
    "SCANNED",
    "classify_reply",
    "decision_of",
    "detect_language",
    "reply_text",
    "turn_decision",
]
