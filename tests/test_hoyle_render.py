"""Cards, boards and waste piles as text (docs/hoyle_cli.md §1, §4.3, §4.4, §4.9), against the
spec's own examples.

Expected texts are written as in the spec: `␣` marks a space that could be missed."""

from hoyle import render
from tests.bytes_check import expect_same
from hoyle.model import Game
from tests.test_hoyle_model import A_CLUBS, A_DIAMONDS, TWO_CLUBS, started

TEN_DIAMONDS, TEN_SPADES, NINE_SPADES = 9, 48, 47


def spec(text: str) -> bytes:
    return text.replace("␣", " ").encode("utf-8")


def same(got: str, want: str) -> None:
    expect_same(got.encode("utf-8"), spec(want), "rendered text")


def test_card_texts_of_spec_section_1():
    texts = [render.card_text(card) for card in (0, 12, 13, 27, 28, 42, 51, TEN_DIAMONDS)]
    assert texts == ["A♦", "K♦", "A♣", "2♥", "3♥", "4♠", "K♠", "10♦"]
    assert [ord(glyph) for glyph in render.SUIT_GLYPHS] == [0x2666, 0x2663, 0x2665, 0x2660]


def test_text_board_of_spec_section_4_3():
    game = started().draw(TWO_CLUBS).play_on_waste_pile(0).draw(A_DIAMONDS)
    same(render.text_board(game),
         "F1:  A♣     F2:  2♥     F3:  3♥     F4:  4♠␣␣␣␣␣\n"
         "W1:  2♣     W2:         W3:         W4:␣␣␣␣␣␣␣␣␣\n"
         "Drawn Card: A♦\n")


def test_text_board_without_a_held_card_shows_the_remaining_count():
    same(render.text_board(started()).splitlines(keepends=True)[2], "Remaining Cards (48)\n")


def test_a_ten_makes_its_entry_one_column_wider():
    game = started().draw(TEN_SPADES).play_on_waste_pile(2)
    same(render.text_board(game).splitlines(keepends=True)[1],
         "W1:         W2:         W3:  10♠     W4:␣␣␣␣␣␣␣␣␣\n")


ASCII_EXAMPLE = """\
Foundation Piles:
  ┌─────────┐   ┌─────────┐   ┌─────────┐   ┌─────────┐␣
  │ A       │   │ 2       │   │ 3       │   │ 4       │␣␣
  │         │   │         │   │         │   │         │␣
  │    ♣    │   │    ♥    │   │    ♥    │   │    ♠    │␣
  │         │   │         │   │         │   │         │␣
  │       A │   │       2 │   │       3 │   │       4 │␣
1 └─────────┘ 2 └─────────┘ 3 └─────────┘ 4 └─────────┘␣

Waste Piles:
  ┌─────────┐   ┌─────────┐   ┌─────────┐   ┌─────────┐␣
  │         │   │         │   │         │   │         │␣␣
  │         │   │         │   │         │   │         │␣
  │         │   │         │   │         │   │         │␣
  │         │   │         │   │         │   │         │␣
  │         │   │         │   │         │   │         │␣
1 └─────────┘ 2 └─────────┘ 3 └─────────┘ 4 └─────────┘␣

Drawn Card:␣
┌─────────┐␣
│ 10      │␣␣
│         │␣
│    ♦    │␣
│         │␣
│      10 │␣
└─────────┘␣

"""


def test_ascii_board_of_spec_section_4_4():
    same(render.ascii_board(started().draw(TEN_DIAMONDS)), ASCII_EXAMPLE)


def test_ascii_board_without_a_held_card_ends_with_the_card_back():
    text = render.ascii_board(started())
    same(text[text.index("Remaining"):],
         "Remaining Cards (48)\n"
         "┌─────────┐\n" + "│░░░░░░░░░│\n" * 5 + "└─────────┘\n")


def test_block_cells_of_a_ten_and_an_empty_pile():
    game = started().draw(TEN_SPADES).play_on_waste_pile(1)
    text = render.ascii_board(game)
    waste_block = text[text.index("Waste Piles:\n"):].splitlines(keepends=True)[1:8]
    same("".join(waste_block),
         "  ┌─────────┐   ┌─────────┐   ┌─────────┐   ┌─────────┐␣\n"
         "  │         │   │ 10      │   │         │   │         │␣␣\n"
         "  │         │   │         │   │         │   │         │␣\n"
         "  │         │   │    ♠    │   │         │   │         │␣\n"
         "  │         │   │         │   │         │   │         │␣\n"
         "  │         │   │      10 │   │         │   │         │␣\n"
         "1 └─────────┘ 2 └─────────┘ 3 └─────────┘ 4 └─────────┘␣\n")


def test_a_waste_pile_is_shown_from_its_top_card_down():
    pile = (TEN_SPADES, TWO_CLUBS, NINE_SPADES)  # bottom to top
    same(render.waste_pile(pile, ascii_cards=False), "9♠\n2♣\n10♠\n")
    same(render.waste_pile(pile[:2], ascii_cards=True),
         "┌─────────┐␣\n│ 2       │␣␣\n│         │␣\n│    ♣    │␣\n│         │␣\n│       2 │␣\n└─────────┘␣\n"
         "┌─────────┐␣\n│ 10      │␣␣\n│         │␣\n│    ♠    │␣\n│         │␣\n│      10 │␣\n└─────────┘␣\n")
    assert render.waste_pile((), ascii_cards=False) == render.waste_pile((), ascii_cards=True) == ""


def test_next_rank_text_is_a_space_for_a_complete_foundation():
    game = Game().start(0, A_CLUBS)
    assert render.next_rank_text(game, 0) == "2"
    for card in range(1, 13):  # 2♦ ... K♦
        game = game.draw(card).play_on_foundation(0)
    assert render.next_rank_text(game, 0) == " "
    assert render.next_rank_text(Game(), 3) == "4"


def test_board_picks_the_mode():
    game = started()
    assert render.board(game, ascii_cards=False) == render.text_board(game)
    assert render.board(game, ascii_cards=True) == render.ascii_board(game)
