"""Keep model text from pinging people or linking issues where GitHub renders a report.

A Markdown report is posted as a pull-request comment (examples/ci/toolgrade.yml), and
CI reporters copy JUnit failure messages into check runs and comments. GitHub turns
`@user` and `@org/team` into mentions that notify those people, and `#123`, `GH-123`,
`owner/repo#123` and issue URLs into references that add an event to that issue's
timeline. Model output (and a third-party suite) can contain any of them.

`neutralise_references` inserts a zero-width space (U+200B, what Dependabot and
Renovate use for the same purpose) right after the `@`, the `#`, the `GH-` or the URL
scheme: the text reads the same, but GitHub no longer recognises a mention or a
reference. Bare commit SHAs are left alone: they only become a link to a commit of the
repository, notify no one, and look like the hashes and run ids people copy from reports.
"""

from __future__ import annotations

import re

__all__ = ["ZERO_WIDTH_SPACE", "neutralise_references"]

ZERO_WIDTH_SPACE = "\u200b"

# Each alternative matches only the prefix after which the zero-width space goes.
_LINKING = re.compile(
    r"@(?=[A-Za-z0-9])"  # @user, @org/team, owner/repo@sha
    r"|#(?=[0-9])"  # #123, owner/repo#123
    r"|\bgh-(?=[0-9])"  # GH-123
    r"|\bhttps?:(?=//)",  # https://github.com/owner/repo/issues/123
    re.IGNORECASE,
)


def neutralise_references(text: str) -> str:
    r"""Break GitHub mentions and issue references with an invisible zero-width space.

    Examples:
        >>> neutralise_references("ask @octocat about #12") == "ask @\u200boctocat about #\u200b12"
        True
        >>> neutralise_references("a@b, # heading, C# 12")
        'a@\u200bb, # heading, C# 12'
    """
    return _LINKING.sub(lambda m: m.group() + ZERO_WIDTH_SPACE, text)
