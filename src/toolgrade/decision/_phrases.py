"""The phrases each rule looks for, per language (lowercase; matched as substrings).

Kept as data, apart from the rules, so that docs/decisions.md can list them and a new
language is one entry per table.
"""

from __future__ import annotations

__all__ = ["CANNOT", "DETAIL_REQUESTS", "OFFERS", "QUESTION_OPENERS"]

DETAIL_REQUESTS: dict[str, tuple[str, ...]] = {
    "en": (
        "please provide",
        "please specify",
        "please clarify",
        "please confirm",
        "please tell me",
        "please let me know",
        "please share",
        "could you provide",
        "can you provide",
        "could you specify",
        "can you specify",
        "could you clarify",
        "can you clarify",
        "could you tell me",
        "can you tell me",
        "could you share",
        "can you share",
        "let me know which",
        "let me know what",
        "i need to know",
        "i need more information",
        "i need more details",
    ),
    "fr": (
        "pourriez-vous préciser",
        "pouvez-vous préciser",
        "pourriez-vous indiquer",
        "pouvez-vous indiquer",
        "veuillez préciser",
        "veuillez indiquer",
        "merci de préciser",
        "pouvez-vous me dire",
        "j'ai besoin de savoir",
    ),
    "de": (
        "bitte geben sie",
        "bitte nennen sie",
        "bitte teilen sie",
        "können sie mir sagen",
        "könnten sie mir sagen",
        "könnten sie angeben",
        "können sie angeben",
        "ich muss wissen",
    ),
    "es": (
        "por favor, indica",
        "por favor indica",
        "por favor, indique",
        "por favor indique",
        "por favor, especifica",
        "podrías indicarme",
        "podría indicarme",
        "puedes indicarme",
        "necesito saber",
    ),
}
"""A request to the user for something the reply needs (`detail_request`)."""

QUESTION_OPENERS: dict[str, tuple[str, ...]] = {
    "en": (
        "which",
        "what",
        "where",
        "when",
        "who",
        "how",
        "do",
        "does",
        "did",
        "should",
        "could",
        "can",
        "is",
        "are",
        "shall",
        "would",
    ),
    "fr": ("quel", "quelle", "quels", "quelles", "où", "quand", "comment", "voulez", "pouvez"),
    "de": ("welche", "welcher", "welches", "wo", "wann", "wie", "was", "möchten", "können"),
    "es": ("cuál", "cuáles", "qué", "dónde", "cuándo", "cómo", "quieres", "puedes"),
}
"""Words a question to the user opens with (`question_to_user`: the reply's last
sentence, ending in a question mark)."""

OFFERS: dict[str, tuple[str, ...]] = {
    "en": (
        "would you like me to",
        "do you want me to",
        "shall i",
        "should i also",
        "let me know if",
        "is there anything else",
        "anything else i can",
    ),
    "fr": ("voulez-vous que je", "souhaitez-vous que je", "autre chose"),
    "de": ("soll ich", "möchten sie, dass ich", "sonst noch"),
    "es": ("quieres que", "desea que", "algo más"),
}
"""How a question offering more after an answer opens (not a request for a missing
detail)."""

CANNOT: dict[str, tuple[str, ...]] = {
    "en": (
        "i can't",
        "i cannot",
        "i can not",
        "i'm unable",
        "i am unable",
        "i'm not able to",
        "i am not able to",
        "i don't have access",
        "i do not have access",
        "i don't have a tool",
        "i do not have a tool",
        "i don't have the ability",
        "i do not have the ability",
        "i don't have any tool",
        "no tool",
        "no suitable tool",
        "no available tool",
        "none of the tools",
        "none of the available",
        "there is no function",
        "there's no function",
        "there is no tool",
        "there's no tool",
        "not possible with the",
        "beyond my capabilities",
        "outside my capabilities",
        "not within my capabilities",
    ),
    "fr": (
        "je ne peux pas",
        "je suis incapable",
        "je n'ai pas accès",
        "aucun outil",
        "aucune fonction",
        "impossible avec les outils",
    ),
    "de": (
        "ich kann nicht",
        "ich kann das nicht",
        "ich kann keine",
        "ich habe keinen zugriff",
        "kein werkzeug",
        "kein tool",
        "keine funktion",
        "nicht möglich mit",
    ),
    "es": (
        "no puedo",
        "no tengo acceso",
        "ninguna herramienta",
        "ninguna función",
        "no es posible con",
    ),
}
"""A reply saying it cannot do this with the tools it has (`cannot_with_tools`)."""
