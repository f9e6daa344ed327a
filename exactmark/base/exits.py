"""The exit statuses every tool gives."""

from enum import IntEnum


class Exit(IntEnum):
    OK = 0
    FAILED = 1
