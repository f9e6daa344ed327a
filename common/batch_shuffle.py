"""`random.seed(s); random.shuffle(deck)` for a whole batch of integer seeds at
once, bit for bit, with numpy: what lets `simulate` go past the pure-Python floor.

CPython 3.10-3.13 (Modules/_randommodule.c, Lib/random.py) seeds an int s with
MT19937's `init_by_array` over the 32-bit words of |s|, least significant
first (0 is the single word 0). `shuffle` then swaps x[i] with x[j] for i from
len - 1 down to 1, j = _randbelow(i + 1): the next output shifted right to
bit_length(i + 1) bits, drawn again while above i. numpy's own seeding is
another routine, so all of it is written out here, each step one operation
over the whole batch.

numpy is an optional extra (requirements-fast.txt): this module imports
without it, and `available()` says whether `shuffled_batch` can run.
"""

import operator

N, M = 624, 397  # MT19937: state words, the twist's middle word
UPPER, LOWER, MATRIX_A = 0x80000000, 0x7FFFFFFF, 0x9908B0DF
CHUNK = 1 << 15  # seeds seeded together: ~100 MB of state; fewer pay more per numpy call
ROWS = 16  # outputs twisted and tempered together, while they are in cache
# Any group of two seeds or more is split in at least two chunks, the last padded when the
# count is odd: then the marked simulate cases (2,001 games, far below CHUNK) reach the
# split, the padding and the slices, and pin them bit for bit.
MIN_CHUNKS = 2


def available() -> bool:
    """Whether numpy can be imported, so that `shuffled_batch` runs."""
    try:
        import numpy  # noqa: F401
    except ImportError:
        return False
    return True


def shuffled_batch(cards, seeds):
    """Row r: `list(cards)` after `random.seed(seeds[r]); random.shuffle(...)`, as
    a numpy array (len(seeds), len(cards)). `seeds`: a sequence (range, list,
    numpy array) of ints of any size; a float, which random.seed would hash,
    is refused (TypeError)."""
    import numpy as np

    values = _card_values(np, cards)
    size = len(values)
    index_type = np.min_scalar_type(max(size - 1, 0))
    count = 2 * size + 16  # outputs ready for each seed: ~1.5 a card on average, rarely more
    permutations = np.empty((len(seeds), size), dtype=index_type)
    for rows, keys in _keys_by_length(np, seeds):
        chunks = max(MIN_CHUNKS, -(-len(rows) // CHUNK))
        width = -(-len(rows) // chunks)  # the last chunk is padded with seeds 0, discarded
        keys = np.pad(keys, ((0, 0), (0, chunks * width - len(rows))))
        # reused by every chunk: fresh memory costs more in page faults than the work
        x, outputs = np.empty((N + count, width), np.uint32), np.empty((count, width), np.uint32)
        for first in range(0, len(rows), width):
            _seed(np, x, keys[:, first:first + width])
            shuffled = _shuffles(np, x, outputs, size, index_type)
            permutations[rows[first:first + width]] = shuffled[:len(rows) - first]
    return values[permutations]


def _card_values(np, cards):
    """The cards as a numpy array: ints in the smallest type that holds them (a
    million deals of 32 cards take 32 MB, and a row's tobytes() is a deal),
    any other cards as the very objects."""
    cards = list(cards)
    if cards and all(isinstance(card, (int, np.integer)) and not isinstance(card, bool) for card in cards):
        smallest = np.promote_types(np.min_scalar_type(min(cards)), np.min_scalar_type(max(cards)))
        return np.array(cards, dtype=smallest)
    return np.fromiter(cards, dtype=object, count=len(cards))


def _keys_by_length(np, seeds):
    """[(rows, key words (length, rows))] for each key length in the batch:
    init_by_array's loop runs over the words of a key."""
    try:  # the usual batch: every |seed| fits in 64 bits, split in numpy
        magnitudes = np.abs(np.fromiter(map(operator.index, seeds), np.int64, len(seeds)))
    except OverflowError:
        return _keys_of_any_size(np, [abs(operator.index(seed)) for seed in seeds])
    magnitudes = magnitudes.view(np.uint64)  # |-2**63| wraps to the right unsigned value
    words = np.stack([magnitudes, magnitudes >> np.uint64(32)]).astype(np.uint32)
    groups = ((1, np.flatnonzero(words[1] == 0)), (2, np.flatnonzero(words[1])))
    return [(rows, words[:length, rows]) for length, rows in groups if rows.size]


def _keys_of_any_size(np, magnitudes):
    """The general split, in Python: seeds of 2**63 and more are rare."""
    lengths = np.array([max(1, -(-magnitude.bit_length() // 32)) for magnitude in magnitudes])
    groups = []
    for length in np.unique(lengths):
        rows = np.flatnonzero(lengths == length)
        words = [[magnitudes[row] >> (32 * word) & 0xFFFFFFFF for row in rows] for word in range(length)]
        groups.append((rows, np.array(words, dtype=np.uint32)))
    return groups


def _genrand_state(np):
    """init_genrand(19650218): where init_by_array starts, for every seed."""
    state = [19650218]
    for i in range(1, N):
        state.append((1812433253 * (state[-1] ^ (state[-1] >> 30)) + i) & 0xFFFFFFFF)
    return np.array(state, dtype=np.uint32)


def _seed(np, x, keys):
    """init_by_array (Modules/_randommodule.c, loop for loop) for keys (length,
    batch) into x[:N]: a state a column, a word a row, each step one operation
    over the batch. Constants are numpy scalars: a Python int costs each
    operation a conversion."""
    length, batch = keys.shape
    start = _genrand_state(np)
    counters = np.arange(max(N, length), dtype=np.uint32)
    shift, first_factor, second_factor = np.uint32(30), np.uint32(1664525), np.uint32(1566083941)
    keys_plus_j = keys + counters[:length, None]
    mt, tmp = list(x[:N]), np.empty(batch, dtype=np.uint32)
    mt[0][:] = start[0]
    i = 1
    for k in range(max(N, length)):
        old = start[i] if k < N - 1 else mt[i]  # the first pass reads words not written yet
        np.right_shift(mt[i - 1], shift, out=tmp)
        np.bitwise_xor(tmp, mt[i - 1], out=tmp)
        np.multiply(tmp, first_factor, out=tmp)
        np.bitwise_xor(tmp, old, out=mt[i])
        np.add(mt[i], keys_plus_j[k % length], out=mt[i])
        i += 1
        if i == N:
            mt[0][:] = mt[N - 1]
            i = 1
    for _ in range(N - 1):
        np.right_shift(mt[i - 1], shift, out=tmp)
        np.bitwise_xor(tmp, mt[i - 1], out=tmp)
        np.multiply(tmp, second_factor, out=tmp)
        np.bitwise_xor(mt[i], tmp, out=mt[i])
        np.subtract(mt[i], counters[i], out=mt[i])
        i += 1
        if i == N:
            mt[0][:] = mt[N - 1]
            i = 1
    mt[0][:] = UPPER


def _outputs(np, x, outputs):
    """Fill `outputs` (count, batch) with the first tempered outputs of the states
    x[:N]; x[N:N + count] gets the raw words. MT19937 is one sequence, a state
    being x[0:N] and x[k + N] = x[k + M] ^ twist(x[k] & UPPER | x[k + 1] & LOWER)
    (twist(y) = y >> 1, ^ MATRIX_A if y is odd), so any N - M words in a row
    read only words already there: the twist, block by block."""
    count, batch = outputs.shape
    low = np.empty((min(count, ROWS), batch), dtype=np.uint32)
    for k in range(0, count, ROWS):
        stop = min(k + ROWS, count)
        new, t, y = x[N + k:N + stop], low[:stop - k], outputs[k:stop]
        np.bitwise_and(x[k:stop], UPPER, out=new)
        np.bitwise_and(x[k + 1:stop + 1], LOWER, out=t)
        new |= t
        new >>= 1
        t &= 1
        t *= MATRIX_A
        new ^= t
        new ^= x[k + M:stop + M]
        np.right_shift(new, 11, out=t)
        np.bitwise_xor(new, t, out=y)
        np.left_shift(y, 7, out=t)
        t &= 0x9D2C5680
        y ^= t
        np.left_shift(y, 15, out=t)
        t &= 0xEFC60000
        y ^= t
        np.right_shift(y, 18, out=t)
        y ^= t
    return outputs


def _shuffles(np, x, outputs, size, index_type):
    """The permutations (batch, size) that `shuffle` makes after the states x[:N].
    `outputs` has rows enough for nearly every seed; the few seeds that need
    more are shuffled again from their states with four times as many."""
    permutations, columns = _fisher_yates(np, _outputs(np, x, outputs), size, index_type)
    count, states = len(outputs), x[:N, columns]
    while columns.size:
        count *= 4
        x = np.concatenate([states, np.empty((count, columns.size), dtype=np.uint32)])
        more = _outputs(np, x, np.empty((count, columns.size), dtype=np.uint32))
        done, unfinished = _fisher_yates(np, more, size, index_type)
        permutations[columns] = done
        columns, states = columns[unfinished], states[:, unfinished]
    return permutations


def _fisher_yates(np, outputs, size, index_type):
    """`shuffle` of range(size) after each column of `outputs` (count, batch):
    the permutations (batch, size), and the columns whose outputs ran out.

    Rather than follow each seed's own place in its outputs (a gather a draw,
    a loop a rejection), every seed reads the rows in order at once: row t is
    seed c's draw for the i that c is at, kept in drawn[i, c] (a rejected draw
    is overwritten by the next), and moves c on to i - 1 if it is accepted.
    Then the swaps, one i at a time."""
    batch = outputs.shape[1]
    columns = np.arange(batch)
    shifts = [32 - (i + 1).bit_length() for i in range(size)]
    # an output gives j <= i iff it is below (i + 1) << shift; 0: done, nothing accepted
    limits = np.array([0] + [(i + 1) << shifts[i] for i in range(1, size)], dtype=np.uint32)
    at = np.full(batch, max(size - 1, 0))  # the i each seed draws for; 0: done
    drawn = np.empty((size, batch), dtype=np.uint32)  # row i: the draws for i, in place
    flat_drawn = drawn.reshape(-1)
    for t, output in enumerate(outputs):
        if t >= size - 1 and not at.any():  # none is done before size - 1 draws
            break
        slot = at * batch
        slot += columns
        flat_drawn[slot] = output
        at -= output < limits[at]
    permutations = np.tile(np.arange(size, dtype=index_type), (batch, 1))
    cards = permutations.reshape(-1)
    base = columns * size  # where each seed's row starts in `cards`
    for i in range(size - 1, 0, -1):
        j = drawn[i] >> shifts[i]
        j = base + j
        top = permutations[:, i].copy()
        permutations[:, i] = cards[j]
        cards[j] = top
    return permutations, np.flatnonzero(at)
