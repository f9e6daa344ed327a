"""The probability tables that `simulate(n, i)` prints."""

FREQUENCY_HEADING = "Frequency"


def frequency_table(label: str, counts: dict, games: int, descending: bool = False) -> list:
    """Lines of the table: the label's column right-aligned to the label's width,
    one row per count above zero, each as a percentage of all games."""
    width = len(label)
    heading = f"{label} | {FREQUENCY_HEADING}"
    rows = [
        f"{key:>{width}} | {counts[key] / games * 100:>8.2f}%"
        for key in sorted(counts, reverse=descending)
        if counts[key] > 0
    ]
    return [heading, "-" * len(heading), *rows]
