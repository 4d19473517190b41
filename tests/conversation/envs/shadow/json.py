"""A file named like an installed module (`json`): the file next to the suite wins."""


class Local:
    """Found only in this file."""
