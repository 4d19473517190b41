"""The bottom layer: the shared vocabulary and utilities every package may import.

`vocab` (`ToolCall`, `Status`, `Mismatch`, `PairKind`, `PairResult`, `Rubric`), `verdict`
(`Verdict`, what every judge returns), `transcript` (what a conversation left behind),
`toolcall` (reading calls from the shapes tools and models use), `json_data` (JSON
aliases and strict, bounded parsing), `registry` (lazy registries with entry-point
plug-ins), `threads` (bounded worker threads), `files`, `limits`, `memo`, `trusted`.
Nothing here imports a package above it.
"""
