"""Greet: read a name and a count; print the numbered greeting that many times. A count
above LIMIT is refused, a negative one is an error (exit status 2)."""

LIMIT = 3


def main() -> None:
    name = input().strip()
    count = int(input())
    if count > LIMIT:
        print("too many")
        return
    if count < 0:
        raise SystemExit(2)
    for number in range(count):
        print(f"{number}: hello {name}")
    if count == 0:
        print("no greeting")


def banner(name: str) -> str:
    """The kit's own extra, for a poster: the handout does not ask for it."""
    return "*" * (len(name) + 4)


main()
